# The Affix service (API + workers) for production, against an external PostgreSQL in DATABASE_URL.
# Stage 1 builds plain JavaScript; stage 2 holds only production dependencies and the build.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY packages/sdk/package.json packages/sdk/package.json
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY src ./src
COPY tracker ./tracker
COPY packages/sdk ./packages/sdk
COPY scripts/build.ts scripts/build-sdk.ts ./scripts/
# The SDK first: the CLI's HTTP client is the SDK's (@affix/sdk/http).
RUN npm run build:sdk && npm run build

FROM node:20-bookworm-slim AS runtime
# tini as PID 1: it forwards SIGTERM to node (which drains and exits 0) and reaps children.
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production AFFIX_SEED_DEMO=false PORT=3000 HOST=0.0.0.0
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/package.json
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/sdk/dist ./packages/sdk/dist
COPY bin ./bin
COPY migrations ./migrations
COPY docs ./docs
COPY fixtures ./fixtures
USER node
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/affix.mjs", "start"]
