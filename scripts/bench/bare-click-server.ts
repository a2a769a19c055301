// The click's ceiling for `npm run bench:click`: bare node:http and a pg pool of the service's
// size, doing only the click's write (the click and its tracking event, the very statement the
// service runs). No routing, validation, lookups or rate limit. Usage: tsx bare-click-server.ts <db url> <port> <program> <link> <partner>
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { PgClickPath } from '../../src/db/tracking/click-path.js';
import { createPool } from '../../src/db/infra/pool.js';

const [url, port, programId, linkId, partnerId] = process.argv.slice(2);
const pool = createPool(url!, { max: 20 });
const clicks = new PgClickPath(pool);

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const now = new Date();
    const clickId = `clk_${randomBytes(12).toString('base64url')}`;
    try {
      await clicks.insertClickWithEvent(
        {
          clickId, programId: Number(programId), linkId: Number(linkId), partnerId: Number(partnerId), attributedClickId: clickId,
          affiliateUrl: JSON.parse(Buffer.concat(chunks).toString('utf8')).affiliate_url, pageUrl: null, referrerUrl: null,
          subId: null,
          ip: req.socket.remoteAddress ?? null, userAgent: req.headers['user-agent'] ?? null, test: false, details: {}, createdAt: now,
        },
        { programId: Number(programId), kind: 'click', customerId: null, saleId: null, test: false, details: {}, createdAt: now },
      );
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ click_id: clickId }));
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  });
}).listen(Number(port), '127.0.0.1', () => console.log('bare click server up'));
process.on('SIGTERM', () => process.exit(0));
