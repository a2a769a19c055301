# Runs the Affix service against an external PostgreSQL given in DATABASE_URL.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production AFFIX_SEED_DEMO=false PORT=3000 HOST=0.0.0.0
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY docs ./docs
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "bin/affix.mjs", "start"]
