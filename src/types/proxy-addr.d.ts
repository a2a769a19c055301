// proxy-addr (Express's own client-address rule) ships no types; the one call we make.
declare module 'proxy-addr' {
  import type { IncomingMessage } from 'node:http';
  export default function proxyaddr(req: IncomingMessage, trust: (address: string, hop: number) => boolean): string;
}
