package io.snapcommit.jni;

import java.nio.charset.StandardCharsets;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bridges libsnapcommit's log lines (sc_log_set_handler) to SLF4J, logger
 * {@value #LOGGER}. Lines arrive on the thread that called into the library.
 */
public final class NativeLog {
    public static final String LOGGER = "io.snapcommit.native";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);
    private static final java.util.concurrent.atomic.AtomicLong LINES = new java.util.concurrent.atomic.AtomicLong();

    // sc_log_level values
    static final int DEBUG = 0, INFO = 1, WARN = 2, ERROR = 3;

    private NativeLog() {}

    /** Route native log lines to SLF4J, at the most detailed level the logger has enabled. */
    public static void enable() {
        NativeLoader.load();
        int level = LOG.isDebugEnabled() ? DEBUG : LOG.isInfoEnabled() ? INFO : LOG.isWarnEnabled() ? WARN : ERROR;
        install(level);
    }

    public static void disable() {
        NativeLoader.load();
        uninstall();
    }

    /** Native log lines bridged so far (diagnostics and tests). */
    public static long linesBridged() {
        return LINES.get();
    }

    private static native void install(int minLevel);

    private static native void uninstall();

    /** Called by the native library: level is a sc_log_level, message UTF-8. Must not throw. */
    static void emit(int level, byte[] message) {
        LINES.incrementAndGet();
        String text = new String(message, StandardCharsets.UTF_8);
        switch (level) {
            case DEBUG: LOG.debug(text); break;
            case INFO: LOG.info(text); break;
            case WARN: LOG.warn(text); break;
            default: LOG.error(text); break;
        }
    }
}
