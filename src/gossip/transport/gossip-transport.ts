/**
 * memberlist's network transport: UDP for packets and TCP for streams on one port (memberlist
 * net_transport.go), over IPv4 or IPv6, on whatever Network the runtime hands over (real sockets, or an
 * in-memory network in tests). Bytes in, bytes out; framing and meaning live in the codec and the state machine.
 */
import type { ByteStream, Network, TcpListener, UdpEndpoint } from '../../runtime';
import type { HostPort } from './address';

export interface GossipTransportHandlers {
  /** A datagram arrived. */
  onPacket(bytes: Uint8Array, from: HostPort): void;
  /** A peer opened a stream (push/pull, TCP ping, user message); the handler owns it. */
  onStream(stream: ByteStream): void;
  /** A socket-level problem worth a log line (send failure, listener error); never fatal by itself. */
  onError?(what: 'udp' | 'tcp', error: Error): void;
}

export class GossipTransport {
  private constructor(
    private readonly net: Network,
    private readonly udp: UdpEndpoint,
    private readonly tcp: TcpListener,
    readonly local: HostPort,
  ) {}

  /**
   * Listens on TCP first (port 0 picks a free one), then binds UDP on the same port, as memberlist does: the
   * port peers learn is one address for both. Fails with the runtime's NetworkError (bindFailed).
   */
  static async listen(net: Network, bind: HostPort, handlers: GossipTransportHandlers): Promise<GossipTransport> {
    const tcp = await net.listenTcp(
      bind,
      (stream) => handlers.onStream(stream),
      (error) => handlers.onError?.('tcp', error),
    );
    const local = { host: bind.host, port: tcp.local.port };
    try {
      const udp = await net.bindUdp(local, {
        onMessage: (bytes, from) => handlers.onPacket(bytes, from),
        onError: (error) => handlers.onError?.('udp', error),
      });
      return new GossipTransport(net, udp, tcp, local);
    } catch (error) {
      await tcp.close();
      throw error;
    }
  }

  sendPacket(to: HostPort, bytes: Uint8Array): void {
    this.udp.send(to, bytes);
  }

  /** Opens a stream to a peer, failing (NetworkError dialFailed or dialTimeout) after timeoutMs (memberlist TCPTimeout). */
  dialStream(to: HostPort, timeoutMs: number): Promise<ByteStream> {
    return this.net.connectTcp(to, { timeoutMs });
  }

  async close(): Promise<void> {
    await Promise.all([this.udp.close(), this.tcp.close()]);
  }
}
