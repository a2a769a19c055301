import { stablePort } from '../../scripts/lib/ports.js';

/** A loopback port nobody listens on right now, outside the kernel's ephemeral range. */
export const freePort = stablePort;
