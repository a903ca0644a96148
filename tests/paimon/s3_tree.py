#!/usr/bin/env python3
"""Copy a local table to the S3 test server, or remove a prefix there (pyarrow's S3 client).

    py=$(scripts/pypaimon-setup.sh); eval "$(scripts/s3-servers.sh env)"
    "$py" tests/paimon/s3_tree.py upload LOCAL_DIR s3://BUCKET/PREFIX
    "$py" tests/paimon/s3_tree.py remove s3://BUCKET/PREFIX

Uses the AWS_* variables as tests/paimon/pypaimon_read.py does (AWS_ENDPOINT_URL_S3 or
AWS_ENDPOINT_URL addressed path-style, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
AWS_REGION). Only for test tables: objects are copied one by one, no multipart, no retries.
Exit status 0 on success, 1 on any error, 2 on bad usage.
"""

import os
import sys


def s3fs():
    from pyarrow import fs

    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    kw = {"region": os.environ.get("AWS_REGION", "us-east-1")}
    if endpoint:
        scheme, _, host = endpoint.partition("://")
        kw["endpoint_override"] = host
        kw["scheme"] = scheme
    if os.environ.get("AWS_ACCESS_KEY_ID"):
        kw["access_key"] = os.environ["AWS_ACCESS_KEY_ID"]
        kw["secret_key"] = os.environ.get("AWS_SECRET_ACCESS_KEY", "")
        if os.environ.get("AWS_SESSION_TOKEN"):
            kw["session_token"] = os.environ["AWS_SESSION_TOKEN"]
    return fs.S3FileSystem(**kw)


def key(uri):
    if not uri.startswith("s3://"):
        raise SystemExit("s3_tree: not an s3:// URI: " + uri)
    return uri[len("s3://"):].rstrip("/")


def upload(local, uri):
    s3 = s3fs()
    base = key(uri)
    n = 0
    for d, _, files in os.walk(local):
        for f in sorted(files):
            src = os.path.join(d, f)
            rel = os.path.relpath(src, local)
            with open(src, "rb") as fh, s3.open_output_stream(base + "/" + rel) as out:
                out.write(fh.read())
            n += 1
    print("s3_tree: uploaded %d files to %s" % (n, uri), file=sys.stderr)


def remove(uri):
    from pyarrow import fs

    s3 = s3fs()
    base = key(uri)
    infos = s3.get_file_info(fs.FileSelector(base, recursive=True, allow_not_found=True))
    files = [i.path for i in infos if i.type == fs.FileType.File]
    for p in files:
        s3.delete_file(p)
    print("s3_tree: removed %d files under %s" % (len(files), uri), file=sys.stderr)


def main(argv):
    if len(argv) == 3 and argv[0] == "upload":
        upload(argv[1], argv[2])
    elif len(argv) == 2 and argv[0] == "remove":
        remove(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException as e:
        print("s3_tree: error: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
