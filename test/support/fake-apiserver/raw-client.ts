/**
 * A bare HTTP client for tests of the fake itself: exact requests (methods, content types, bodies) and watch streams
 * read line by line, with nothing in between that might retry, cache or reshape.
 */
import { request as httpRequest } from 'node:http';
import { tokenFor, ADMIN_SUBJECT } from './credentials';

export interface RawResponse {
  code: number;
  body: any; // tests read arbitrary JSON fields
}

export interface WatchEvent {
  type: string;
  object: any; // tests read arbitrary JSON fields
}

export interface RawWatch {
  code: number;
  events: WatchEvent[];
  /** Resolves when the server ends the stream: 'end' for a clean end, 'error' for a reset. */
  closed: Promise<'end' | 'error'>;
  stop(): void;
}

export interface RawClient {
  send(method: string, path: string, body?: unknown, contentType?: string): Promise<RawResponse>;
  watch(path: string): Promise<RawWatch>;
}

export function rawClient(baseUrl: string, subject: string = ADMIN_SUBJECT): RawClient {
  const headers = { Authorization: `Bearer ${tokenFor(subject)}`, Accept: 'application/json' };
  return {
    send(method, path, body, contentType = 'application/json') {
      return new Promise((resolve, reject) => {
        const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
        const request = httpRequest(
          new URL(path, baseUrl),
          { method, headers: { ...headers, ...(text !== undefined ? { 'Content-Type': contentType } : {}) } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => {
              const raw = Buffer.concat(chunks).toString('utf8');
              let parsed: unknown = raw;
              try {
                parsed = JSON.parse(raw);
              } catch {
                // Not JSON (healthz): keep the text.
              }
              resolve({ code: response.statusCode ?? 0, body: parsed });
            });
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(text);
      });
    },
    watch(path) {
      return new Promise((resolve, reject) => {
        const request = httpRequest(new URL(path, baseUrl), { method: 'GET', headers }, (response) => {
          const events: WatchEvent[] = [];
          let buffered = '';
          const closed = new Promise<'end' | 'error'>((done) => {
            response.on('end', () => done('end'));
            response.on('error', () => done('error'));
            response.on('aborted', () => done('error'));
          });
          response.on('data', (chunk: Buffer) => {
            buffered += chunk.toString('utf8');
            let newline = buffered.indexOf('\n');
            while (newline >= 0) {
              const line = buffered.slice(0, newline);
              buffered = buffered.slice(newline + 1);
              if (line.trim() !== '') events.push(JSON.parse(line) as WatchEvent);
              newline = buffered.indexOf('\n');
            }
          });
          resolve({ code: response.statusCode ?? 0, events, closed, stop: () => request.destroy() });
        });
        request.on('error', (error) => reject(error));
        request.end();
      });
    },
  };
}
