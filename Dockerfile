# The provenance CLI as an image: `docker run provenance:0.1.0 check ...`, `... scan worker`; with no
# arguments, the daemon (docs/SELF-HOSTING.md "Docker", docs/SCALE.md "Running workers").
# Build: dependencies (with dev ones, for the build) and dist/.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build

# Run: production dependencies only, the built dist/, bin/ and the package's data/.
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /opt/provenance
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /src/dist ./dist
COPY bin ./bin
COPY data ./data
RUN ln -s /opt/provenance/bin/provenance.js /usr/local/bin/provenance \
 && install -d -m 0700 -o node -g node /data
USER node
ENV PROVENANCE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8787 9464
# /healthz: 200 while the daemon and its store answer (the image has node, not curl). A container
# that runs something else (a scan worker) is started with --no-healthcheck.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["provenance"]
# The metrics listener has no token, so it takes no wildcard address: give the container's own
# with PROVENANCE_METRICS_LISTEN (docker run -e), or leave it off.
CMD ["daemon", "start", "--host", "0.0.0.0", "--port", "8787"]
