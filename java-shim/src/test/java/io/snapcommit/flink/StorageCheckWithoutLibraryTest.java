package io.snapcommit.flink;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.snapcommit.jni.NativeLoader;

/**
 * The planning-time S3 check on a client that cannot load libsnapcommit_jni (simulated with
 * -Dsnapcommit.jni.path pointing at a missing file, in a fresh JVM: the loader keeps its outcome and
 * this JVM has loaded the library). Left at its default the check is skipped with a WARN and the
 * sink builds (the job is submittable; the TaskManagers check at open); asked for explicitly it
 * fails with an IllegalArgumentException that says how to turn it off. An UnsatisfiedLinkError
 * never escapes.
 */
class StorageCheckWithoutLibraryTest {
    @TempDir Path tmp;

    /** Child JVM: arg 0 = default|required|datastream-default|datastream-required. */
    public static final class Probe {
        public static void main(String[] args) {
            String mode = args[0];
            try {
                if (mode.startsWith("datastream")) {
                    SnapcommitSink.Builder b = SnapcommitSink.builder().path("s3://bucket/t").rowType(
                        org.apache.flink.table.types.logical.RowType.of(new org.apache.flink.table.types.logical.IntType()));
                    if (mode.endsWith("required")) b.checkStorage(true);
                    b.build();
                    System.out.println("RESULT built");
                } else {
                    SinkConfig c = SinkConfigs.of("s3://bucket/t", "auto", null, 1, Duration.ofMillis(1),
                                                  Duration.ofMillis(1), null, 1, null);
                    System.out.println("RESULT checked=" + c.checkStorage(mode.equals("required")));
                }
            } catch (IllegalArgumentException e) {
                System.out.println("RESULT refused: " + e.getMessage());
            } catch (Throwable t) {
                System.out.println("RESULT escaped " + t.getClass().getName() + ": " + t.getMessage());
            }
        }
    }

    private String run(String mode) throws Exception {
        String missing = tmp.resolve("nowhere/libsnapcommit_jni.so").toString();
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("-D" + NativeLoader.PATH_PROPERTY + "=" + missing);
        cmd.add(Probe.class.getName());
        cmd.add(mode);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM did not finish");
        assertEquals(0, p.exitValue(), out);
        assertFalse(out.contains("RESULT escaped"), out);
        return out;
    }

    @Test
    void defaultCheckIsSkippedWithAWarning() throws Exception {
        for (String mode : new String[] {"default", "datastream-default"}) {
            String out = run(mode);
            assertTrue(out.contains(mode.equals("default") ? "RESULT checked=false" : "RESULT built"), out);
            assertTrue(out.contains("WARN"), out);
            assertTrue(out.contains("skipping the planning-time storage check of s3://bucket/t"), out);
            assertTrue(out.contains("cannot load libsnapcommit_jni"), out);
            assertTrue(out.contains("TaskManagers check the storage when they open the table"), out);
        }
    }

    @Test
    void requiredCheckFailsWithHowToTurnItOff() throws Exception {
        for (String mode : new String[] {"required", "datastream-required"}) {
            String out = run(mode);
            assertTrue(out.contains("RESULT refused: cannot check s3://bucket/t at planning time"), out);
            assertTrue(out.contains("'s3.check-on-plan' = 'false'"), out);
            assertTrue(out.contains("checkStorage(false)"), out);
            assertTrue(out.contains("-D" + NativeLoader.PATH_PROPERTY), out); // what the loader tried
        }
    }
}
