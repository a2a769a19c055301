// CSV downloads written as their rows are read: a chunk per page of the export, never the whole
// file in memory, and no statement longer than one page (a large export never reaches the
// statement timeout that answers 503).
import type { Response } from 'express';

/**
 * Sends `chunks` as a CSV attachment. The first chunk is awaited before anything is sent, so the
 * export's checks (scope, input) fail as an ordinary error response. A failure after the first
 * chunk cuts the connection (the download is visibly incomplete, never a silently short file)
 * and is passed on to be logged. A client that goes away stops the reading.
 */
export async function sendCsv(res: Response, filename: string, chunks: AsyncIterable<string>): Promise<void> {
  const iterator = chunks[Symbol.asyncIterator]();
  let step = await iterator.next();
  res.type('text/csv').attachment(filename);
  try {
    while (!step.done) {
      if (res.destroyed) return void (await iterator.return?.());
      if (!res.write(step.value)) await drained(res);
      step = await iterator.next();
    }
    res.end();
  } catch (error) {
    res.destroy();
    throw error;
  }
}

/** Resolves when the response can take more, or is closed. */
const drained = (res: Response) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
