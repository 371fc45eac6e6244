#!/usr/bin/env bash
# The container suite (issue 45): builds the image's two targets and proves the platform in
# containers: `docker compose up` (the platform and PostgreSQL) becomes healthy within the start
# period; `berth deploy` from the host deploys test/fixtures/container-app; the official SDK runs
# it and streams; the platform and PostgreSQL made anew (`down`, `up`) keep the deployment, threads
# and runs; SIGTERM drains
# (a run in progress finishes after the platform is up again, and the container exits 0, not
# killed); `docker compose down -v` leaves no container, network or volume of the project. Also
# checks the image: its size (BERTH_IMAGE_MAX_MB, 500), non-root, tini, production node_modules
# only, no compilers. BERTH_BUILD_CONTEXT: build from another directory (default: this checkout).
# Without an engine it says why and exits 0 as skipped, except as root on Debian, where it installs
# and starts one (scripts/container/engine.sh) and must run. Needs `npm run build` (the CLI).
set -euo pipefail
cd "$(dirname "$0")/../.."

PROJECT="${BERTH_COMPOSE_PROJECT:-berth-containers}"
MAX_MB="${BERTH_IMAGE_MAX_MB:-500}"
export BERTH_POSTGRES_IMAGE="${BERTH_POSTGRES_IMAGE:-berth-local/postgres:15-bookworm}"
export BERTH_API_KEY="containers-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
suite_start=$(date +%s)
step_start=$suite_start
work="$(mktemp -d)"

step() {
  local now
  now=$(date +%s)
  echo "== containers [$((now - suite_start))s, last step $((now - step_start))s]: $*"
  step_start=$now
}
fail() {
  echo "containers: FAILED: $*" >&2
  exit 1
}

step "engine"
set +e
compose_cli="$(scripts/container/engine.sh)"
engine_status=$?
set -e
if [ "$engine_status" -eq 77 ]; then
  if [ "$(id -u)" -eq 0 ] && [ -f /etc/debian_version ]; then
    fail "no container engine as root on Debian, where the suite must run (reason above)"
  fi
  echo "containers: SKIPPED (no container engine here; the reason is above)"
  exit 0
fi
[ "$engine_status" -eq 0 ] || fail "scripts/container/engine.sh exited $engine_status"
read -r -a compose <<<"$compose_cli"
compose+=(-p "$PROJECT")

project_left() {
  docker ps -aq --filter "label=com.docker.compose.project=$PROJECT"
  docker network ls -q --filter "label=com.docker.compose.project=$PROJECT"
  docker volume ls -q --filter "label=com.docker.compose.project=$PROJECT"
}
finish() {
  local status=$?
  if [ "$status" -ne 0 ] && [ -n "$(project_left)" ]; then
    "${compose[@]}" logs --no-color --tail 20 postgres >&2 || true
    "${compose[@]}" logs --no-color --tail 60 berth >&2 || true
    "${compose[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap finish EXIT

[ -z "$(project_left)" ] || "${compose[@]}" down -v --remove-orphans

step "base images (made locally where no registry serves them; kept in the engine between runs)"
scripts/container/base-images.sh

step "docker build: the platform (default target) and the cluster listener"
# The legacy builder: BuildKit would fetch the Dockerfile's syntax frontend from a registry.
export DOCKER_BUILDKIT=0
context="${BERTH_BUILD_CONTEXT:-.}"
build() {
  # Once more on a failure: the engine's COPY has been seen to fail once on an unchanged context.
  docker build -q --network host "$@" "$context" >/dev/null \
    || { echo "docker build $* failed; once more" >&2; docker build -q --network host "$@" "$context" >/dev/null; }
}
build -t berth:local
build --target listener -t berth-listener:local

step "the images"
size_mb() { echo $(($(docker image inspect -f '{{.Size}}' "$1") / 1000000)); }
inside() {
  local image="$1"
  shift
  docker run --rm --network none --entrypoint sh "$image" -c "$*"
}
for image in berth:local berth-listener:local; do
  user="$(docker image inspect -f '{{.Config.User}}' "$image")"
  entrypoint="$(docker image inspect -f '{{join .Config.Entrypoint " "}}' "$image")"
  echo "$image: $(size_mb "$image") MB, user $user, entrypoint $entrypoint"
  [ "$user" = 1000:1000 ] && [ "$(inside "$image" 'id -un')" = node ] || fail "$image runs as '$user', not node (1000:1000)"
  case "$entrypoint" in /usr/bin/tini\ --*) ;; *) fail "$image does not start under tini" ;; esac
  compilers="$(inside "$image" 'for c in cc gcc g++ make python3; do command -v $c; done; true')"
  [ -z "$compilers" ] || fail "$image holds compilers: $compilers"
  stray="$(inside "$image" 'node -e "
    const { execSync } = require(\"node:child_process\");
    const { existsSync } = require(\"node:fs\");
    let listed = \"\";
    try { listed = execSync(\"npm ls --omit=dev --all --parseable\", { encoding: \"utf8\", stdio: [\"ignore\", \"pipe\", \"ignore\"] }); }
    catch (error) { listed = error.stdout; }
    const production = new Set(listed.trim().split(\"\\n\"));
    const dev = Object.keys(require(\"/berth/package.json\").devDependencies ?? {});
    const stray = dev.filter((name) => existsSync(\"/berth/node_modules/\" + name) && !production.has(\"/berth/node_modules/\" + name));
    console.log(stray.join(\" \"));
  "')"
  [ -z "$stray" ] || fail "$image holds development packages: $stray"
done
inside berth:local 'command -v git >/dev/null' || fail "the platform image has no git (repository sources)"
[ "$(size_mb berth:local)" -le "$MAX_MB" ] || fail "the platform image is $(size_mb berth:local) MB, over $MAX_MB MB"
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^(berth|berth-listener|node|berth-local/[a-z]+):' || true

for port in 8080 8200 8249; do
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || fail "port $port is taken on this machine (compose publishes 8080 and 8200-8249)"
done

berth_container() { "${compose[@]}" ps -q berth; }
# Waits until the platform's container is healthy; fails when it is not within `limit` seconds of
# the container's start (its start period, 60 s, after `up`).
wait_healthy() {
  local limit=$1 status="" started since
  started="$(docker inspect -f '{{.State.StartedAt}}' "$(berth_container)")"
  since=$(date -d "$started" +%s)
  while [ $(($(date +%s) - since)) -le "$limit" ]; do
    status="$(docker inspect -f '{{.State.Health.Status}}' "$(berth_container)" 2>/dev/null || true)"
    [ "$status" = healthy ] && { echo "healthy $(($(date +%s) - since)) s after its start"; return 0; }
    sleep 1
  done
  docker inspect -f '{{range .State.Health.Log}}{{.Start}}: {{.ExitCode}} {{.Output}}{{println}}{{end}}' "$(berth_container)" >&2
  fail "the platform is '$status' $limit s after its start"
}

# Waits (60 s at most) until the deployment's runtime, which the platform starts again after its
# own start, answers GET /ok.
wait_runtime() {
  local since
  since=$(date +%s)
  until curl -fs -o /dev/null -m 5 -H "x-api-key: $BERTH_API_KEY" "$runtime_url/ok"; do
    [ $(($(date +%s) - since)) -le 60 ] || fail "the deployment's runtime does not answer at $runtime_url/ok"
    sleep 1
  done
  echo "the deployment answers $(($(date +%s) - since)) s after the platform is healthy"
}

step "docker compose up (the platform and PostgreSQL ($BERTH_POSTGRES_IMAGE))"
"${compose[@]}" up -d --no-build
wait_healthy 60

step "berth deploy test/fixtures/container-app from the host"
[ -f dist/apps/cli/src/main.js ] || npm run build >/dev/null
deploy_out="$work/deploy.log"
BERTH_HOST_URL=http://127.0.0.1:8080 timeout 300 node dist/apps/cli/src/main.js deploy \
  test/fixtures/container-app >"$deploy_out" 2>&1 || { cat "$deploy_out" >&2; fail "berth deploy"; }
cat "$deploy_out"
url="$(sed -n 's/^.*URL: \(http[^ ]*\).*$/\1/p' "$deploy_out" | tail -n 1)"
port="$(echo "$url" | sed -n 's,^http://[^/:]*:\([0-9]*\).*$,\1,p')"
[ -n "$port" ] || fail "berth deploy named no deployment URL"
runtime_url="http://127.0.0.1:$port"

step "the official SDK runs it and streams ($runtime_url)"
state="$work/sdk-state.json"
node scripts/container/sdk-check.mjs stream "$runtime_url" "$state"

step "the platform and PostgreSQL restarted (new containers, the same volumes) keep the deployment, its threads and runs"
# Not `docker compose restart`: Debian's Docker 20.10 on these machines starts a container again
# with a root it cannot read (`stat /usr/bin/tini: permission denied`; health checks: `unable to
# find user`), so every restart here makes the containers anew, as an upgrade does.
"${compose[@]}" down
"${compose[@]}" up -d --no-build
wait_healthy 60
BERTH_HOST_URL=http://127.0.0.1:8080 node dist/apps/cli/src/main.js deploy list | tee "$work/list.log"
grep -q 'container-app.*READY' "$work/list.log" || fail "the deployment is not READY after the restart"
wait_runtime
node scripts/container/sdk-check.mjs check "$runtime_url" "$state"

step "SIGTERM drains: a run in progress goes back to the queue and finishes after the platform is up again"
node scripts/container/sdk-check.mjs slow "$runtime_url" "$state"
container="$(berth_container)"
stop_at=$(date +%s)
docker stop -t 30 "$container" >/dev/null
exit_code="$(docker inspect -f '{{.State.ExitCode}}' "$container")"
echo "stopped in $(($(date +%s) - stop_at)) s, exit code $exit_code"
[ "$exit_code" = 0 ] || fail "the platform exited $exit_code on SIGTERM (137: killed, it did not drain in 30 s)"
"${compose[@]}" up -d --no-build --force-recreate berth
wait_healthy 60
wait_runtime
node scripts/container/sdk-check.mjs check "$runtime_url" "$state"

step "docker compose down -v leaves nothing"
"${compose[@]}" down -v
left="$(project_left)"
[ -z "$left" ] || fail "left behind: $left"

step "passed in $(($(date +%s) - suite_start)) s"
