# Sourced by scripts/flink-*.sh: JDK selection, JVM options for Flink on Java 17,
# and the native + JNI build.
jdk=/usr/lib/jvm/java-17-openjdk-amd64
if [ -x "$jdk/bin/java" ]; then export JAVA_HOME=$jdk; export PATH="$jdk/bin:$PATH"; fi
# Flink on Java 17 needs these opens (as in Flink's env.java.opts.all).
FLINK_JAVA_OPTS=(-XX:+IgnoreUnrecognizedVMOptions
  --add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.text=ALL-UNNAMED --add-opens=java.base/java.time=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED)
MVN_FLAGS=(-B -Dstyle.color=never)
[ "${SNAPCOMMIT_MVN_OFFLINE:-0}" = 1 ] && MVN_FLAGS+=(-o)

# Build libsnapcommit (build/) and libsnapcommit_jni.so (build-jni/, linking build/libsnapcommit.a).
flink_build_native() {
  echo "== native library and JNI binding =="
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build --target snapcommit_static snapcommit_cli -j"$(nproc)"
  cmake -S jni -B build-jni -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_NATIVE_BUILD_DIR="$PWD/build" >/dev/null
  cmake --build build-jni -j"$(nproc)"
  bash jni/check_exports.sh build-jni/libsnapcommit_jni.so
}
