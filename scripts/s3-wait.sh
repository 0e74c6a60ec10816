#!/usr/bin/env bash
# Waits until an S3 store serves a bucket: a SigV4-signed ListObjectsV2 of
# the bucket (what floe itself asks at start) answers 200. A store that
# listens but has not made the bucket yet answers 404 NoSuchBucket, and
# that is waited out too, not only a closed port.
#
#   scripts/s3-wait.sh ENDPOINT BUCKET [TIMEOUT_SECONDS]
#
# Credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the
# region from AWS_REGION (default us-east-1). With WAIT_PID set, a process
# with that id that exits ends the wait at once (the store died).
set -euo pipefail

endpoint=${1:?usage: s3-wait.sh ENDPOINT BUCKET [TIMEOUT_SECONDS]}
bucket=${2:?usage: s3-wait.sh ENDPOINT BUCKET [TIMEOUT_SECONDS]}
timeout=${3:-120}
region=${AWS_REGION:-us-east-1}
: "${AWS_ACCESS_KEY_ID:?s3-wait: set AWS_ACCESS_KEY_ID}" "${AWS_SECRET_ACCESS_KEY:?s3-wait: set AWS_SECRET_ACCESS_KEY}"

deadline=$((SECONDS + timeout))
state=""
say() { # one line per change of what the store answers
  if [ "$1" != "$state" ]; then
    state=$1
    echo "s3-wait: $2"
  fi
}
while :; do
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
    --aws-sigv4 "aws:amz:$region:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    "$endpoint/$bucket?list-type=2&max-keys=1" || true)
  case "$code" in
  200)
    echo "s3-wait: bucket $bucket on $endpoint answers"
    exit 0
    ;;
  000) say down "no answer from $endpoint yet" ;;
  404) say nobucket "$endpoint answers; waiting for it to make bucket $bucket" ;;
  *) say "http$code" "$endpoint answers $code for bucket $bucket; waiting" ;;
  esac
  if [ -n "${WAIT_PID:-}" ] && ! kill -0 "$WAIT_PID" 2>/dev/null; then
    echo "s3-wait: the store (pid $WAIT_PID) exited before bucket $bucket answered" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "s3-wait: bucket $bucket on $endpoint did not answer within ${timeout}s (last answer: ${code/000/none})" >&2
    exit 1
  fi
  sleep 0.25 # polling interval
done
