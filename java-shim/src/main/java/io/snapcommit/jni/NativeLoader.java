package io.snapcommit.jni;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads libsnapcommit_jni once per class loader, in this order:
 * <ol>
 *   <li>the file named by the system property {@value #PATH_PROPERTY} (a failure there is final);</li>
 *   <li>{@code System.loadLibrary("snapcommit_jni")} from {@code java.library.path};</li>
 *   <li>the copy bundled in the jar at {@value #RESOURCE}, extracted under a unique temporary
 *       name and loaded with {@code System.load}.</li>
 * </ol>
 * The loaded library must then name every commit kind, strategy and error code as this jar does
 * (NativeEnums), or it is refused like one that does not load.
 * A JVM lets only one class loader load a given file; Flink session clusters give each job
 * its own user-code class loader, so the bundled copy is extracted under a fresh name for each.
 */
public final class NativeLoader {
    public static final String PATH_PROPERTY = "snapcommit.jni.path";
    public static final String LIBRARY = "snapcommit_jni";
    public static final String RESOURCE = "/native/linux-x86_64/libsnapcommit_jni.so";

    private static final Logger LOG = LoggerFactory.getLogger(NativeLoader.class);
    private static volatile String loadedFrom;
    private static UnsatisfiedLinkError failure;

    private NativeLoader() {}

    /** Load the library (idempotent). Throws UnsatisfiedLinkError naming every attempt when all fail. */
    public static void load() {
        if (loadedFrom != null) return;
        synchronized (NativeLoader.class) {
            if (loadedFrom != null) return;
            if (failure != null) throw failure;
            try {
                String from = doLoad();
                checkCodes(from);
                loadedFrom = from;
                LOG.info("loaded libsnapcommit_jni from {}", loadedFrom);
            } catch (UnsatisfiedLinkError e) {
                failure = e;
                throw e;
            }
        }
    }

    /** The library must number kinds, strategies and error codes as this jar does (see NativeEnums). */
    private static void checkCodes(String from) {
        List<String> wrong = NativeEnums.libraryMismatches();
        if (!wrong.isEmpty())
            throw new UnsatisfiedLinkError("libsnapcommit_jni from " + from + " does not match this connector jar (a "
                                           + "library of another build?): " + String.join("; ", wrong));
    }

    /** Where the library was loaded from, or null before load(). */
    public static String loadedFrom() {
        return loadedFrom;
    }

    /**
     * What the library needs besides the JVM, appended to every load failure: a missing system
     * library is the usual cause on a fresh TaskManager, and the linker's message names only the
     * first one it missed.
     */
    static final String REQUIREMENTS =
        "libsnapcommit_jni.so (Linux x86-64, glibc >= 2.34) needs these shared libraries on every TaskManager: "
        + "libcurl.so.4, libssl.so.3 + libcrypto.so.3, libexpat.so.1, libjansson.so.4, libavro.so.23, libzstd.so.1, "
        + "libz.so.1 (Debian/Ubuntu: apt-get install libcurl4 libssl3 libexpat1 libjansson4 libavro23 libzstd1 zlib1g; "
        + "RHEL/Fedora: dnf install libcurl openssl-libs expat jansson avro-c libzstd zlib); "
        + "check with: ldd libsnapcommit_jni.so";

    private static String doLoad() {
        String explicit = System.getProperty(PATH_PROPERTY);
        if (explicit != null && !explicit.isEmpty()) {
            String path = Paths.get(explicit).toAbsolutePath().toString();
            try {
                System.load(path); // a configured path that does not load is a configuration error
            } catch (UnsatisfiedLinkError e) {
                throw failure("Tried: -D" + PATH_PROPERTY + "=" + path + " (explicit, nothing else is tried): "
                              + e.getMessage(), e);
            }
            return path;
        }
        List<String> attempts = new ArrayList<>();
        try {
            System.loadLibrary(LIBRARY);
            return "java.library.path (" + System.mapLibraryName(LIBRARY) + ")";
        } catch (UnsatisfiedLinkError e) {
            attempts.add("System.loadLibrary(\"" + LIBRARY + "\"): " + e.getMessage());
        }
        try {
            return extractAndLoad();
        } catch (IOException | UnsatisfiedLinkError e) {
            attempts.add("bundled " + RESOURCE + ": " + e.getMessage());
        }
        throw failure("Tried: " + String.join("; ", attempts) + ". Or set -D" + PATH_PROPERTY
                      + "=/path/to/libsnapcommit_jni.so", null);
    }

    private static UnsatisfiedLinkError failure(String tried, Throwable cause) {
        String hint = "";
        if (tried.contains("already loaded in another classloader")) {
            hint = " A JVM lets one class loader load a given file: with -D" + PATH_PROPERTY + " or the library in "
                   + "java.library.path, put the connector jar in Flink's lib/ (one parent class loader), or drop "
                   + "the property so that each job loads its own extracted copy.";
        }
        UnsatisfiedLinkError error = new UnsatisfiedLinkError("cannot load libsnapcommit_jni. " + tried + "." + hint
                                                              + " " + REQUIREMENTS);
        if (cause != null) error.initCause(cause);
        return error;
    }

    private static String extractAndLoad() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new UnsatisfiedLinkError("no bundled library for " + os + "/" + arch + " (only linux-x86_64)");
        }
        try (InputStream in = NativeLoader.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new UnsatisfiedLinkError("resource not found: this connector jar was packaged without "
                                                     + "the JNI library (build it: scripts/flink-test.sh)");
            Path tmp = Files.createTempFile("libsnapcommit_jni-", ".so"); // unique per class loader
            try {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                System.load(tmp.toAbsolutePath().toString());
            } finally {
                // The mapping stays valid once loaded; nothing is left behind in /tmp.
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    tmp.toFile().deleteOnExit();
                }
            }
            return "bundled resource (extracted to " + tmp + ")";
        }
    }
}
