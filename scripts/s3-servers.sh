#!/usr/bin/env bash
# S3 test servers for snapcommit, on 127.0.0.1 only.
#
#   scripts/s3-servers.sh start   install if needed, start both servers, print the env
#   scripts/s3-servers.sh env     print export lines for the running servers
#   scripts/s3-servers.sh status  say whether they run and answer
#   scripts/s3-servers.sh stop    stop them (by the pids recorded at start)
#
#   eval "$(scripts/s3-servers.sh env)"
#
# Servers:
#   gofakes3 v1.2.0  (go install) atomic conditional writes (If-None-Match: *,
#                    If-Match) under one lock, no signature checks; If-Match
#                    on a missing key answers 412, not 404. The server for
#                    "exactly one winner" tests.
#   moto 5.2.5       (pip, in a venv) AWS-shaped error bodies; IAM
#                    authentication switched on after setup, so it verifies
#                    SigV4 signatures of an IAM user created here. Its
#                    conditional checks are not atomic: never assert a
#                    single winner against it.
#
# Network: only the Go module proxy and PyPI, through go and pip, and only
# when a tool is missing. Installs go to $SC_TOOLS (default
# /root/.cache/snapcommit/tools); state (ports, pids, logs, credentials of
# the throwaway moto user) to $SC_S3_STATE (default /tmp/snapcommit-s3).
set -euo pipefail

TOOLS=${SC_TOOLS:-/root/.cache/snapcommit/tools}
STATE=${SC_S3_STATE:-/tmp/snapcommit-s3}
BUCKET=${SC_S3_BUCKET:-snapcommit-test}
GOFAKES3_VERSION=v1.2.0
MOTO_VERSION=5.2.5
# Credentials the moto setup requests are "signed" with (moto does not check them before
# auth is switched on) and the ones gofakes3 clients may use (it checks none).
SETUP_KEY=AKIAIOSFODNN7EXAMPLE
GOFAKES3_KEY=snapcommit-gofakes3
GOFAKES3_SECRET=snapcommit-gofakes3-secret

ENV_FILE=$STATE/env
PID_FILE=$STATE/pids

die() { echo "s3-servers: $*" >&2; exit 1; }
note() { echo "s3-servers: $*" >&2; }

# ---- installation (idempotent) ----

install_gofakes3() {
    if [[ -x $TOOLS/gofakes3 ]]; then return 0; fi
    command -v go >/dev/null || die "go is not installed (needed for gofakes3 $GOFAKES3_VERSION)"
    mkdir -p "$TOOLS"
    note "installing gofakes3 $GOFAKES3_VERSION into $TOOLS (go install)"
    GOBIN=$TOOLS go install "github.com/johannesboyne/gofakes3/cmd/gofakes3@$GOFAKES3_VERSION" \
        || die "go install gofakes3@$GOFAKES3_VERSION failed"
}

MOTO_VENV=$TOOLS/moto-venv

moto_ready() {
    [[ -x $MOTO_VENV/bin/python ]] &&
        "$MOTO_VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('moto') != '$MOTO_VERSION')" 2>/dev/null
}

install_moto() {
    if moto_ready; then return 0; fi
    command -v python3 >/dev/null || die "python3 is not installed (needed for moto)"
    mkdir -p "$TOOLS"
    note "installing moto[server]==$MOTO_VERSION into $MOTO_VENV (pip)"
    # --system-site-packages: a moto already installed system-wide is reused, not downloaded.
    [[ -x $MOTO_VENV/bin/pip ]] || python3 -m venv --system-site-packages "$MOTO_VENV" \
        || die "cannot create $MOTO_VENV"
    "$MOTO_VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" \
        || die "pip install moto[server]==$MOTO_VERSION failed"
    moto_ready || die "moto $MOTO_VERSION is not usable from $MOTO_VENV"
}

# ---- helpers ----

free_port() {
    python3 - <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
}

# wait_http URL SECONDS: until the server answers with any HTTP status.
wait_http() {
    local url=$1 deadline=$((SECONDS + $2))
    while ((SECONDS < deadline)); do
        if curl -s -o /dev/null --max-time 2 "$url"; then return 0; fi
        sleep 0.2
    done
    return 1
}

pid_alive() { [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null; }

read_pids() {
    GOFAKES3_PID="" MOTO_PID=""
    # shellcheck disable=SC1090
    [[ -f $PID_FILE ]] && source "$PID_FILE"
    return 0
}

running() {
    read_pids
    [[ -f $ENV_FILE ]] && pid_alive "$GOFAKES3_PID" && pid_alive "$MOTO_PID" || return 1
    # shellcheck disable=SC1090
    (source "$ENV_FILE" && curl -s -o /dev/null --max-time 2 "$SC_GOFAKES3_ENDPOINT/" &&
        curl -s -o /dev/null --max-time 2 "$SC_MOTO_ENDPOINT/moto-api/")
}

# An unauthenticated-but-routed IAM call to moto (before auth is switched on).
moto_iam() {
    local endpoint=$1
    shift
    local data="Version=2010-05-08"
    for kv in "$@"; do data+="&$kv"; done
    curl -sS --max-time 10 -X POST "$endpoint/" \
        -H "Authorization: AWS4-HMAC-SHA256 Credential=$SETUP_KEY/20240101/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=0" \
        -H "Content-Type: application/x-www-form-urlencoded" \
        --data "$data"
}

# moto_signed KEY:SECRET URL: HTTP status of a GET signed by curl; body to $STATE/last-moto-body.
moto_signed() {
    curl -s -o "$STATE/last-moto-body" -w '%{http_code}' --max-time 10 \
        --aws-sigv4 "aws:amz:us-east-1:s3" --user "$1" \
        -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$2"
}

xml_field() { # xml_field NAME < body
    python3 -c '
import sys, xml.etree.ElementTree as ET
name = sys.argv[1]
root = ET.fromstring(sys.stdin.read())
for el in root.iter():
    if el.tag.rsplit("}", 1)[-1] == name:
        print(el.text or ""); break
' "$1"
}

# ---- start / stop ----

start_gofakes3() {
    local port
    port=$(free_port)
    nohup setsid "$TOOLS/gofakes3" -backend memory -host "127.0.0.1:$port" \
        -initialbucket "$BUCKET" >"$STATE/gofakes3.log" 2>&1 </dev/null &
    GOFAKES3_PID=$!
    echo "GOFAKES3_PID=$GOFAKES3_PID" >>"$PID_FILE" # recorded at once: "stop" finds it even if start fails
    GOFAKES3_ENDPOINT=http://127.0.0.1:$port
    wait_http "$GOFAKES3_ENDPOINT/" 20 || die "gofakes3 did not answer on $GOFAKES3_ENDPOINT (see $STATE/gofakes3.log)"
    # The bucket exists (created at start-up): a listing of it must succeed.
    local code
    code=$(curl -s -o /dev/null -w '%{http_code}' "$GOFAKES3_ENDPOINT/$BUCKET?list-type=2")
    [[ $code == 200 ]] || die "gofakes3: bucket $BUCKET not listable (HTTP $code)"
}

start_moto() {
    local port
    port=$(free_port)
    # "python -m moto.server" is moto_server; the venv may reuse a system-wide moto, whose
    # console script then lives outside the venv.
    nohup setsid "$MOTO_VENV/bin/python" -m moto.server -H 127.0.0.1 -p "$port" \
        >"$STATE/moto.log" 2>&1 </dev/null &
    MOTO_PID=$!
    echo "MOTO_PID=$MOTO_PID" >>"$PID_FILE"
    MOTO_ENDPOINT=http://127.0.0.1:$port
    wait_http "$MOTO_ENDPOINT/moto-api/" 60 || die "moto did not answer on $MOTO_ENDPOINT (see $STATE/moto.log)"
    local code
    code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT "$MOTO_ENDPOINT/$BUCKET")
    [[ $code == 200 ]] || die "moto: creating bucket $BUCKET answered HTTP $code"

    # An IAM user allowed s3:* whose key the tests sign with; then switch on authentication,
    # from which moto checks every request's SigV4 signature against that user's secret.
    MOTO_AUTH=0 MOTO_KEY="" MOTO_SECRET=""
    local policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}'
    local enc_policy body
    enc_policy=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$policy")
    if moto_iam "$MOTO_ENDPOINT" Action=CreateUser UserName=snapcommit >/dev/null &&
        moto_iam "$MOTO_ENDPOINT" Action=PutUserPolicy UserName=snapcommit PolicyName=s3all \
            "PolicyDocument=$enc_policy" >/dev/null &&
        body=$(moto_iam "$MOTO_ENDPOINT" Action=CreateAccessKey UserName=snapcommit) &&
        MOTO_KEY=$(xml_field AccessKeyId <<<"$body") &&
        MOTO_SECRET=$(xml_field SecretAccessKey <<<"$body") &&
        [[ -n $MOTO_KEY && -n $MOTO_SECRET ]] &&
        curl -sS --max-time 10 -X POST "$MOTO_ENDPOINT/moto-api/reset-auth" \
            -H "Content-Type: text/plain" --data-binary 0 | grep -q '"status": "ok"'; then
        # Proof that it now checks signatures: the right secret is let in, a wrong one refused
        # with SignatureDoesNotMatch. (curl signs with SigV4 itself here.)
        local good bad
        good=$(moto_signed "$MOTO_KEY:$MOTO_SECRET" "$MOTO_ENDPOINT/$BUCKET?list-type=2")
        bad=$(moto_signed "$MOTO_KEY:not-the-secret" "$MOTO_ENDPOINT/$BUCKET?list-type=2")
        if [[ $good == 200 && $bad == 403 ]] &&
            grep -q SignatureDoesNotMatch "$STATE/last-moto-body"; then
            MOTO_AUTH=1
        else
            note "moto answered $good for the right secret and $bad for a wrong one: signature checks are OFF"
        fi
        rm -f "$STATE/last-moto-body"
    else
        note "moto IAM setup failed: signature checks are OFF"
    fi
}

do_start() {
    mkdir -p "$STATE"
    if running; then
        note "already running"
        cat "$ENV_FILE"
        return 0
    fi
    do_stop quiet
    install_gofakes3
    install_moto
    mkdir -p "$STATE"
    chmod 700 "$STATE"
    : >"$PID_FILE"
    start_gofakes3
    start_moto
    umask 077
    cat >"$ENV_FILE" <<EOF
export SC_S3_BUCKET=$BUCKET
export SC_GOFAKES3_ENDPOINT=$GOFAKES3_ENDPOINT
export SC_GOFAKES3_ACCESS_KEY_ID=$GOFAKES3_KEY
export SC_GOFAKES3_SECRET_ACCESS_KEY=$GOFAKES3_SECRET
export SC_MOTO_ENDPOINT=$MOTO_ENDPOINT
export SC_MOTO_AUTH=$MOTO_AUTH
export SC_MOTO_ACCESS_KEY_ID=$MOTO_KEY
export SC_MOTO_SECRET_ACCESS_KEY=$MOTO_SECRET
export AWS_ENDPOINT_URL_S3=$GOFAKES3_ENDPOINT
export AWS_ACCESS_KEY_ID=$GOFAKES3_KEY
export AWS_SECRET_ACCESS_KEY=$GOFAKES3_SECRET
export AWS_REGION=us-east-1
EOF
    note "gofakes3 on $GOFAKES3_ENDPOINT (pid $GOFAKES3_PID), moto on $MOTO_ENDPOINT (pid $MOTO_PID, signature checks $([[ $MOTO_AUTH == 1 ]] && echo on || echo OFF)), bucket $BUCKET"
    cat "$ENV_FILE"
}

# Stop one recorded pid if it is still the server we started (the pid may have been reused).
stop_pid() {
    local pid=$1 name=$2
    pid_alive "$pid" || return 0
    if ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name"; then
        note "pid $pid is no longer $name: left alone"
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
        pid_alive "$pid" || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}

do_stop() {
    read_pids
    stop_pid "$GOFAKES3_PID" gofakes3
    stop_pid "$MOTO_PID" moto.server
    rm -f "$PID_FILE" "$ENV_FILE"
    [[ ${1:-} == quiet ]] || note "stopped"
}

case ${1:-} in
start) do_start ;;
stop) do_stop ;;
env)
    running || die "S3 test servers not running: run scripts/s3-servers.sh start"
    cat "$ENV_FILE"
    ;;
status)
    if running; then
        note "running"
        cat "$ENV_FILE"
    else
        note "not running"
        exit 1
    fi
    ;;
*)
    echo "usage: $0 start|stop|env|status" >&2
    exit 2
    ;;
esac
