package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

/** The Maven build runs every test JVM with -Xcheck:jni (surefire argLine); make sure it stays that way. */
class JniCheckTest {
    @Test
    void testsRunWithCheckJni() {
        if (System.getProperty("flink.line") == null) return; // not under Maven (e.g. an IDE)
        assertTrue(ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-Xcheck:jni"),
                   "surefire must pass -Xcheck:jni: " + ManagementFactory.getRuntimeMXBean().getInputArguments());
    }
}
