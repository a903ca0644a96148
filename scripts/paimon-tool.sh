#!/usr/bin/env bash
# PaimonTool (integration/paimon-compat/; standalone, not in the Maven reactor of pom.xml): Apache
# Paimon's own Java reader, writer and committer behind a command line, the reference for the
# Paimon-format checks. Builds the jar once (Maven, cached in integration/paimon-compat/target;
# rebuilt when a source or the pom is newer) and runs it.
#   scripts/paimon-tool.sh read /path/to/table [--snapshot N]
#   scripts/paimon-tool.sh --build-only
# Commands and output: integration/paimon-compat/src/main/java/io/snapcommit/paimon/PaimonTool.java.
# SNAPCOMMIT_MVN_OFFLINE=1: no network (after a first build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mod=$root/integration/paimon-compat
jar=$mod/target/paimon-compat.jar

stale() {
    [[ -f $jar && -d $mod/target/lib ]] || return 0
    [[ -n $(find "$mod/pom.xml" "$mod/src" -newer "$jar" -print -quit) ]]
}

# One build at a time: ctest runs several Paimon checks in parallel, and two Maven builds into
# one target/ would clobber each other's jar. The second waits, then finds the jar fresh.
mkdir -p "$mod/target"
exec 9>"$mod/target/.build.lock"
flock 9
if stale; then
    # flink-setup installs the JDK 17 and Maven (and the native build's packages) when missing.
    command -v mvn >/dev/null && [[ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ]] || "$root/scripts/flink-setup.sh" >&2
    source "$root/scripts/flink-env.sh"
    echo "paimon-tool: building $jar" >&2
    rm -rf "$mod/target/lib"
    mvn "${MVN_FLAGS[@]}" -q -f "$mod/pom.xml" package -DskipTests >&2
fi
flock -u 9
[[ ${1:-} == --build-only ]] && exit 0
jdk=/usr/lib/jvm/java-17-openjdk-amd64
java=java; [[ -x $jdk/bin/java ]] && java=$jdk/bin/java
# C1 only (TieredStopAtLevel=1): every run is a short-lived CLI call; this saves a third of the
# CPU time of a read on the shared 2-core test machines.
exec "$java" -XX:+IgnoreUnrecognizedVMOptions -XX:TieredStopAtLevel=1 --add-opens=java.base/java.nio=ALL-UNNAMED \
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED \
    --add-opens=java.base/java.util=ALL-UNNAMED -Xss4m -jar "$jar" "$@"
