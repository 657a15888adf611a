// A Speaker runs on the parts it is handed: a configuration source that is no file, fake layer-2 and BGP
// announcers and no control socket. A new configuration from the source is elected and announced at once, and a
// refused one keeps the last good configuration running; a source that refuses at start fails the start with
// its diagnostics. Gossip runs on loopback with the real runtime.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/daemon/logger';
import { Speaker, type SpeakerOptions } from '../../src/daemon/speaker';
import type { BgpSessions, SpeakerParts } from '../../src/daemon/speaker-parts';
import { SWIM_PROFILES } from '../../src/gossip/swim';
import { DiagnosticCode } from '../../src/model';
import { REAL_RUNTIME } from '../../src/runtime';
import { ConfigLoadError } from '../../src/sources/config-source';
import { InMemoryConfigSource } from '../support/in-memory-config-source';
import { configSnapshot } from './config-facts/config-yaml';
import { recordingLayerTwo } from '../support/recording-layer-two';

const dir = mkdtempSync(join(tmpdir(), 'mlb-speaker-parts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const silent = createLogger({ level: 'error', destination: { write: () => true } as unknown as NodeJS.WritableStream });

interface Fakes {
  readonly parts: SpeakerParts;
  /** Every set of IPs the layer-2 announcer was asked to answer for, in order. */
  readonly reconciled: string[][];
  controlOpened: boolean;
}

function fakeParts(source: InMemoryConfigSource): Fakes {
  const reconciled: string[][] = [];
  const layerTwo = recordingLayerTwo(reconciled);
  const bgp: BgpSessions = { update: () => undefined, status: () => [], close: async () => undefined };
  const fakes: Fakes = {
    reconciled,
    controlOpened: false,
    parts: {
      configSource: source,
      runtime: REAL_RUNTIME,
      openLayerTwo: async () => layerTwo,
      openBgp: () => bgp,
      openControl: async () => {
        fakes.controlOpened = true;
        return { close: async () => undefined };
      },
    },
  };
  return fakes;
}

function options(name: string): SpeakerOptions {
  return {
    nodeName: name,
    bind: { host: '127.0.0.1', port: 0 },
    join: [],
    stateDir: join(dir, name),
    nodeLabels: {},
    gossipConfig: SWIM_PROFILES.fast,
    profileName: 'fast',
    logger: silent,
    announce: true,
    controlSocket: join(dir, `${name}.sock`),
    version: 'test',
  };
}

const ownedServices = (speaker: Speaker) =>
  speaker
    .snapshot()
    .services.filter((s) => s.owner === 'node-a')
    .map((s) => s.service)
    .sort();

describe('Speaker on the parts it is handed', () => {
  let speaker: Speaker | undefined;
  afterEach(async () => {
    await speaker?.stop();
    speaker = undefined;
  });

  it('elects and announces what a configuration source that is no file emits, and keeps the last good one when it refuses', async () => {
    const source = new InMemoryConfigSource(configSnapshot(['web']));
    const fakes = fakeParts(source);
    speaker = new Speaker(options('node-a'), fakes.parts);
    await speaker.start();
    expect(fakes.controlOpened).toBe(true);
    await vi.waitFor(() => expect(ownedServices(speaker!)).toEqual(['demo/web']));
    await vi.waitFor(() => expect(fakes.reconciled.at(-1)).toHaveLength(1));

    source.emit(configSnapshot(['web', 'api']));
    await vi.waitFor(() => expect(ownedServices(speaker!)).toEqual(['demo/api', 'demo/web']));
    await vi.waitFor(() => expect(fakes.reconciled.at(-1)).toHaveLength(2));
    expect(speaker.snapshot().config).toMatchObject({ file: 'memory', state: 'ok' });
    expect(speaker.eventsSince(0).map((e) => e.type)).toContain('configReloaded');

    source.refuse([{ severity: 'error', code: DiagnosticCode.fileUnreadable, message: 'the API server went away' }]);
    await vi.waitFor(() =>
      expect(speaker!.snapshot().config).toMatchObject({ state: 'stale', errors: ['error: the API server went away'] }),
    );
    expect(ownedServices(speaker)).toEqual(['demo/api', 'demo/web']);
  });

  it('stops the source when it stops, and withdraws every announcement', async () => {
    const source = new InMemoryConfigSource(configSnapshot(['web']));
    const fakes = fakeParts(source);
    const running = new Speaker(options('node-b'), fakes.parts);
    await running.start();
    await vi.waitFor(() => expect(fakes.reconciled.at(-1)).toHaveLength(1));
    await running.stop();
    expect(source.stopped).toBe(true);
    expect(fakes.reconciled.at(-1)).toEqual([]);
  });

  it('a source that refuses at start fails the start with its diagnostics, before any socket is opened', async () => {
    const source = new InMemoryConfigSource(undefined, Date.now, [
      { severity: 'error', code: DiagnosticCode.fileUnreadable, message: 'no objects yet' },
    ]);
    const fakes = fakeParts(source);
    const failure = await new Speaker(options('node-c'), fakes.parts).start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(ConfigLoadError);
    expect((failure as ConfigLoadError).message).toBe('configuration memory is not valid (1 error)');
    expect(fakes.controlOpened).toBe(false);
    expect(source.stopped).toBe(true);
  });
});
