package io.snapcommit.consumer;

import io.snapcommit.jni.ErrorCode;
import java.net.URL;

/**
 * Compiled against the installed connector jar and run on it by tests/java_packaging.sh: proves that
 * the resolved artifact holds the connector's classes and the JNI library it loads at run time.
 * Touches no Flink class (Flink is "provided" and not on a consumer's resolved class path).
 */
public final class UsesConnector {
    private UsesConnector() {}

    public static void main(String[] args) {
        URL so = UsesConnector.class.getClassLoader().getResource("native/linux-x86_64/libsnapcommit_jni.so");
        if (so == null) {
            System.out.println("snapcommit-consumer: native/linux-x86_64/libsnapcommit_jni.so not on the class path");
            System.exit(1);
        }
        System.out.println("snapcommit-consumer: " + ErrorCode.values().length + " error codes; JNI library at " + so);
    }
}
