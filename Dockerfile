# The procurement service's image. Two stages: `build` installs every dependency and compiles dist/; the
# runtime stage gets dist/, bin/ and the production dependencies only, and runs as the unprivileged `node`
# user. scripts/production-install.sh runs the same steps without a container engine (CI runs it).
#
#   docker build -t procurement .
#   docker run -p 3000:3000 -v procurement-data:/data procurement                  # embedded database in /data
#   docker run -p 3000:3000 --env-file procurement.env procurement                 # PostgreSQL (DATABASE_URL …)
#
# Every setting comes from the environment at run time (docs/configuration.md); nothing secret is baked in.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json /app/package-lock.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/bin ./bin
COPY LICENSE CHANGELOG.md ./
# The embedded database's folder (used when DATABASE_URL is unset), owned by the service's user, mode 0700.
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data && ln -s /app/bin/procurement.cjs /usr/local/bin/procurement
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# `procurement <command>` runs the other commands in the same image (e.g. `migrate`, `tenants create …`).
ENTRYPOINT ["node", "/app/bin/procurement.cjs"]
CMD ["serve"]
