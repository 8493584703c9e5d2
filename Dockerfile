# syntax=docker/dockerfile:1
# DeepNote's image: `deepnote serve` (the default) or `deepnote worker`, the data directory on a volume at /data.
#   docker build -t deepnote .
#   docker run -p 8080:8080 -v deepnote-data:/data -e DEEPNOTE_LLM_URL=http://vllm:8000/v1 deepnote serve --engine llm
#   docker run -v deepnote-data:/data -e DEEPNOTE_STORE=postgres://… deepnote worker
# The build steps are one script (infra/image/build.sh) that CI also runs without Docker (infra/image/check.sh).
ARG NODE_VERSION=22.23.3

FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 compiles from source against this Node's headers
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN bash infra/image/build.sh /src /app

FROM node:${NODE_VERSION}-bookworm-slim
RUN groupadd --system deepnote \
  && useradd --system --gid deepnote --home-dir /data --shell /usr/sbin/nologin deepnote \
  && mkdir -p /data && chown deepnote:deepnote /data
COPY --from=build /app /app
ENV NODE_ENV=production \
    DEEPNOTE_HOME=/data
# V8's code cache of the command (apps/cli/bin/run-bundle.mjs), made now with the image's Node and flags: the
# user the command runs as cannot write under /app, and without it every start compiles the 5 MB bundle
RUN node /app/apps/cli/bin/deepnote.mjs status --help > /dev/null
VOLUME ["/data"]
WORKDIR /data
USER deepnote
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/apps/cli/bin/deepnote.mjs"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
