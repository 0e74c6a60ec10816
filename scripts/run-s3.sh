#!/usr/bin/env bash
# `make run-s3`: floe on object storage, for a look. Starts a SeaweedFS S3
# store on loopback (data in $DATA/weed), then floe with its warehouse at
# s3://floe/warehouse on that store and the bundled Lance worker. Ctrl-C
# stops both.
set -euo pipefail
cd "$(dirname "$0")/.."

data=${DATA:-./floe-data-s3}
s3_port=${S3_PORT:-8333}
weed=$(scripts/weed-build.sh)
mkdir -p "$data/weed"

# One identity for floe; the keys stay on this machine.
export AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID:-floe-local}
export AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:-floe-local-secret}
cat >"$data/weed/s3.json" <<JSON
{"identities":[{"name":"floe","credentials":[{"accessKey":"$AWS_ACCESS_KEY_ID","secretKey":"$AWS_SECRET_ACCESS_KEY"}],"actions":["Admin","Read","List","Tagging","Write"]}]}
JSON

# Loopback only, telemetry off, and SeaweedFS's own Iceberg/Lance catalogs
# and admin UI off: their default ports are floe's.
"$weed" mini -dir="$data/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.telemetry=false \
  -s3.port="$s3_port" -s3.config="$data/weed/s3.json" -s3.port.iceberg=0 -s3.port.lance=0 \
  -admin.ui=false -webdav=false -bucket=floe >"$data/weed/weed.log" 2>&1 &
weed_pid=$!
trap 'kill $weed_pid 2>/dev/null; wait $weed_pid 2>/dev/null' EXIT

# Ready means the bucket answers a signed listing, not just that the port
# is open: weed's S3 listens seconds before it has made the bucket, and
# floe refuses to start on a store without its bucket.
echo "run-s3: waiting for bucket floe on the S3 store at 127.0.0.1:$s3_port (log: $data/weed/weed.log)"
if ! WAIT_PID=$weed_pid scripts/s3-wait.sh "http://127.0.0.1:$s3_port" floe 180; then
  echo "run-s3: the S3 store is not ready; see $data/weed/weed.log" >&2
  exit 1
fi

./bin/floe serve --data "$data" --with-worker \
  --warehouse s3://floe/warehouse --s3-endpoint "http://127.0.0.1:$s3_port" --s3-path-style
