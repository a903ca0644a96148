package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A library that cannot be loaded fails with a message listing what was tried and the system
 * libraries a TaskManager needs. Each case runs in a fresh JVM: the loader keeps its outcome per
 * class loader, and this JVM has loaded the library already.
 */
class NativeLoaderFailureTest {
    @TempDir Path tmp;

    /** Child JVM entry point: load, print the error's message, exit 3 on failure. */
    public static final class Probe {
        public static void main(String[] args) {
            try {
                NativeLoader.load();
                System.out.println("LOADED " + NativeLoader.loadedFrom());
            } catch (UnsatisfiedLinkError e) {
                System.out.println("ERROR " + e.getMessage());
                System.exit(3);
            }
        }
    }

    private static String run(String classPath, String... jvmArgs) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(classPath);
        for (String a : jvmArgs) cmd.add(a);
        cmd.add(Probe.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM did not finish");
        assertEquals(3, p.exitValue(), "the load was expected to fail: " + out);
        return out;
    }

    private static void assertNamesRequirements(String out) {
        for (String lib : new String[] {"libcurl.so.4", "libssl.so.3", "libexpat.so.1", "libjansson.so.4", "libavro.so.23", "ldd"})
            assertTrue(out.contains(lib), "message does not name " + lib + ": " + out);
        assertTrue(out.contains("apt-get install libcurl4 libssl3 libexpat1 libjansson4 libavro23 libzstd1 zlib1g"), out);
    }

    @Test
    void explicitPathThatDoesNotLoadNamesItAndTheSystemLibraries() throws Exception {
        String missing = tmp.resolve("nowhere/libsnapcommit_jni.so").toString();
        String out = run(System.getProperty("java.class.path"), "-D" + NativeLoader.PATH_PROPERTY + "=" + missing);
        assertTrue(out.contains("ERROR cannot load libsnapcommit_jni"), out);
        assertTrue(out.contains("-D" + NativeLoader.PATH_PROPERTY + "=" + missing), out);
        assertNamesRequirements(out);
    }

    @Test
    void jarWithoutTheBundledLibraryListsEveryAttempt() throws Exception {
        // The connector's classes without native/ (what the Maven build used to package when the JNI
        // build was missing), nothing on java.library.path.
        Path classes = Paths.get(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path stripped = tmp.resolve("classes");
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path rel = classes.relativize(f);
                if (rel.startsWith("native")) continue;
                Path to = stripped.resolve(rel.toString());
                if (Files.isDirectory(f)) Files.createDirectories(to);
                else Files.copy(f, to);
            }
        }
        assertFalse(Files.exists(stripped.resolve("native")));
        StringBuilder cp = new StringBuilder(stripped.toString());
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (Paths.get(e).toAbsolutePath().normalize().equals(classes.toAbsolutePath().normalize())) continue;
            cp.append(File.pathSeparator).append(e);
        }
        String out = run(cp.toString(), "-Djava.library.path=" + tmp.resolve("empty"));
        assertTrue(out.contains("System.loadLibrary(\"snapcommit_jni\")"), out);
        assertTrue(out.contains("bundled " + NativeLoader.RESOURCE), out);
        assertTrue(out.contains("packaged without the JNI library"), out);
        assertTrue(out.contains("-D" + NativeLoader.PATH_PROPERTY), out);
        assertNamesRequirements(out);
    }
}
