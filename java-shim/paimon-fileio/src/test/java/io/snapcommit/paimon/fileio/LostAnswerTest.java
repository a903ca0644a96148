package io.snapcommit.paimon.fileio;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import io.snapcommit.jni.NativeStore;
import io.snapcommit.jni.StoreConfig;
import io.snapcommit.jni.UnknownOutcomeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NativeStore.putIfAbsent when the answer to the conditional PUT is lost: a proxy in front of the
 * gofakes3 test server (scripts/s3-servers.sh) forwards every request but, for a PUT carrying
 * If-None-Match, drops the answer (or the request) and closes the connection. The outcome must be
 * settled by reading the object back, never guessed.
 */
class LostAnswerTest {
    enum Mode { PASS, LOSE_ANSWER, DROP_REQUEST }

    private volatile Mode mode = Mode.PASS;
    private final AtomicInteger conditionalPuts = new AtomicInteger();
    private ServerSocket proxy;
    private Thread acceptor;
    private String upstreamHost;
    private int upstreamPort;

    private static String setting(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isEmpty() || v.startsWith("${")) v = System.getenv(name);
        return v == null || v.isEmpty() ? null : v;
    }

    @BeforeEach
    void startProxy() throws IOException {
        String endpoint = setting("SC_GOFAKES3_ENDPOINT");
        assertNotNull(endpoint, "S3 test servers not running: scripts/s3-servers.sh start, then eval its env");
        java.net.URI u = java.net.URI.create(endpoint);
        upstreamHost = u.getHost();
        upstreamPort = u.getPort();
        proxy = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "lost-answer-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void stopProxy() throws IOException {
        proxy.close();
    }

    private void accept() {
        while (!proxy.isClosed()) {
            try {
                Socket client = proxy.accept();
                Thread t = new Thread(() -> serve(client));
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    /** One request per connection: forwarded with Connection: close, the answer relayed or dropped. */
    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int state = 0, b;
            while (state < 4 && (b = in.read()) >= 0) {
                head.write(b);
                state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1
                                                                                                              : 0;
            }
            if (state < 4) return;
            String text = head.toString(StandardCharsets.ISO_8859_1);
            String lower = text.toLowerCase(Locale.ROOT);
            int length = 0;
            StringBuilder forwarded = new StringBuilder();
            for (String line : text.split("\r\n")) {
                if (line.isEmpty()) continue;
                String l = line.toLowerCase(Locale.ROOT);
                if (l.startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
                if (l.startsWith("connection:")) continue;
                forwarded.append(line).append("\r\n");
            }
            forwarded.append("Connection: close\r\n\r\n");
            byte[] body = in.readNBytes(length);
            boolean conditional = lower.startsWith("put ") && lower.contains("\r\nif-none-match:");
            if (conditional) conditionalPuts.incrementAndGet();
            if (conditional && mode == Mode.DROP_REQUEST) return;
            try (Socket up = new Socket(upstreamHost, upstreamPort)) {
                OutputStream o = up.getOutputStream();
                o.write(forwarded.toString().getBytes(StandardCharsets.ISO_8859_1));
                o.write(body);
                o.flush();
                byte[] answer = up.getInputStream().readAllBytes();
                if (conditional && mode == Mode.LOSE_ANSWER) return;
                client.getOutputStream().write(answer);
                client.getOutputStream().flush();
            }
        } catch (IOException e) {
            // the client went away: nothing to relay
        }
    }

    private NativeStore store() {
        StoreConfig c = StoreConfig.builder()
            .endpoint("http://127.0.0.1:" + proxy.getLocalPort())
            .accessKey(setting("SC_GOFAKES3_ACCESS_KEY_ID"))
            .secretKey(setting("SC_GOFAKES3_SECRET_ACCESS_KEY"))
            .pathStyle(true)
            .build();
        String bucket = setting("SC_S3_BUCKET");
        assertNotNull(bucket, "SC_S3_BUCKET unset: eval \"$(scripts/s3-servers.sh env)\"");
        return NativeStore.openStore("s3://" + bucket + "/lost-answer-" + System.nanoTime(), c);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void ourCreateLandedButItsAnswerWasLost() {
        try (NativeStore s = store()) {
            mode = Mode.LOSE_ANSWER;
            byte[] mine = utf8("{\"commitUser\":\"a\",\"commitIdentifier\":1}");
            assertTrue(s.putIfAbsent("snapshot-1", mine, 0, mine.length));
            assertEquals(1, conditionalPuts.get(), "a conditional PUT is never re-sent");
            mode = Mode.PASS;
            assertArrayEquals(mine, s.getObject("snapshot-1"));
        }
    }

    @Test
    void anotherWritersObjectWithTheAnswerLost() {
        try (NativeStore s = store()) {
            byte[] theirs = utf8("{\"commitUser\":\"b\"}");
            assertTrue(s.putIfAbsent("snapshot-1", theirs, 0, theirs.length));
            mode = Mode.LOSE_ANSWER;
            byte[] mine = utf8("{\"commitUser\":\"a\"}");
            assertFalse(s.putIfAbsent("snapshot-1", mine, 0, mine.length));
            mode = Mode.PASS;
            assertArrayEquals(theirs, s.getObject("snapshot-1"));
        }
    }

    @Test
    void nothingThereIsNotReadAsLost() {
        try (NativeStore s = store()) {
            mode = Mode.DROP_REQUEST;
            byte[] mine = utf8("{\"commitUser\":\"a\"}");
            // Absent after a lost answer: the request may still land, so neither true nor false.
            assertThrows(UnknownOutcomeException.class, () -> s.putIfAbsent("snapshot-1", mine, 0, mine.length));
        }
    }
}
