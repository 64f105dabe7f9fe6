# tsingest: the Kafka → HBase ingest service. Node 24 runs the TypeScript sources directly (type
# stripping), so there is no compile step: the build stage only installs the full dependency set and
# type-checks src/ as a gate; the runtime stage has production dependencies and the sources.
#
#   docker build -t tsingest .
#   docker run --rm -p 127.0.0.1:9464:9464 \
#     -e TSI_KAFKA_BROKERS=kafka:29092 -e TSI_HBASE_REST_URL=http://hbase:8080 tsingest
#
# Configuration: file (TSI_CONFIG=/path/to.json, e.g. the image's config/ or a mounted one) →
# environment (TSI_*) → flags, see src/runtime/config.ts. HTTP /metrics /healthz /readyz on 9464.
# Only classic-builder syntax is used, so plain `docker build` and BuildKit both work.

ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no dependency needs an install script to work here (the `node` devDependency's
# binary download is not needed inside an image that already is Node 24).
RUN npm ci --ignore-scripts --no-audit --no-fund
# .dockerignore lets only package*.json, tsconfig*.json, src/ and config/ into the context.
COPY . .
RUN mkdir -p config \
 && node_modules/.bin/tsc -p tsconfig.build.json --noEmit

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TSI_HTTP_HOST=0.0.0.0 \
    TSI_HTTP_PORT=9464
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force
COPY --from=build /app/src ./src
COPY --from=build /app/config ./config

USER node
EXPOSE 9464
# No curl in the slim image: Node's fetch does the probe.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TSI_HTTP_PORT||'9464')+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The service drains on SIGTERM (commits what was written) and forces on a second signal.
STOPSIGNAL SIGTERM
CMD ["node", "src/main.ts"]
