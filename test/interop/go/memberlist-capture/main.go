// memberlist-capture runs small clusters of real hashicorp/memberlist nodes (Debian's v0.2.2, GOPATH mode) on
// 127.0.0.1 and records every byte they put on the wire: each UDP packet handed to the transport's WriteTo and
// each stream's written bytes, per side. mlb's codec tests decode these captures (test/fixtures/gossip/).
//
// Usage: memberlist-capture -out DIR [-scenario NAME]
//
// Scenarios (one JSON file each):
//
//	plain          compression off, no encryption, no delegate
//	compressed     EnableCompression (the default); one node is named "127.0.0.1" so Go, which looks the
//	               destination up by host, adds the CRC header to packets it sends to 127.0.0.1 peers
//	encrypted      compression on and a MetalLB-style key (secret bytes followed by SHA-256("") cut to 32)
//	encrypted-v0   as encrypted, protocol version 1, so the keyring writes encryption version 0 (PKCS7)
//	delegate       compression off, a delegate with non-UTF-8 node meta, user state and user messages
//
// Each run: three nodes join, exchange user messages over UDP and TCP, a fourth node joins and then stops
// without leaving (so probes fail: indirect pings, nacks, TCP ping attempts, suspect and dead messages), and
// the third node leaves gracefully (dead with From == Node).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

// ---------------------------------------------------------------- recording

type packetRecord struct {
	Seq  int    `json:"seq"`
	From string `json:"from"`
	To   string `json:"to"`
	Hex  string `json:"hex"`
}

type streamRecord struct {
	Seq  int    `json:"seq"`
	Node string `json:"node"`
	// "dial" for the side that opened the stream, "accept" for the responder.
	Side string `json:"side"`
	Peer string `json:"peer"`
	Hex  string `json:"hex"`
}

type recorder struct {
	mu      sync.Mutex
	seq     int
	packets []packetRecord
	streams []*recordingConn
}

func (r *recorder) next() int {
	r.seq++
	return r.seq
}

type recordingTransport struct {
	*memberlist.NetTransport
	name     string
	rec      *recorder
	accepted chan net.Conn
}

func (t *recordingTransport) WriteTo(b []byte, addr string) (time.Time, error) {
	t.rec.mu.Lock()
	t.rec.packets = append(t.rec.packets, packetRecord{Seq: t.rec.next(), From: t.name, To: addr, Hex: hex.EncodeToString(b)})
	t.rec.mu.Unlock()
	return t.NetTransport.WriteTo(b, addr)
}

func (t *recordingTransport) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	c, err := t.NetTransport.DialTimeout(addr, timeout)
	if err != nil {
		return nil, err
	}
	return t.wrap(c, "dial", addr), nil
}

// NetTransport is a NodeAwareTransport, so memberlist calls these instead of WriteTo and DialTimeout.
func (t *recordingTransport) WriteToAddress(b []byte, a memberlist.Address) (time.Time, error) {
	return t.WriteTo(b, a.Addr)
}

func (t *recordingTransport) DialAddressTimeout(a memberlist.Address, timeout time.Duration) (net.Conn, error) {
	return t.DialTimeout(a.Addr, timeout)
}

func (t *recordingTransport) StreamCh() <-chan net.Conn {
	return t.accepted
}

type recordingConn struct {
	net.Conn
	mu      sync.Mutex
	seq     int
	node    string
	side    string
	peer    string
	written []byte
}

func (c *recordingConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.written = append(c.written, b...)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (t *recordingTransport) wrap(c net.Conn, side, peer string) *recordingConn {
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	rc := &recordingConn{Conn: c, seq: t.rec.next(), node: t.name, side: side, peer: peer}
	t.rec.streams = append(t.rec.streams, rc)
	return rc
}

// relay passes the NetTransport's incoming streams on through recordingConn wrappers.
func (t *recordingTransport) relay() {
	for c := range t.NetTransport.StreamCh() {
		t.accepted <- t.wrap(c, "accept", c.RemoteAddr().String())
	}
}

// ---------------------------------------------------------------- delegate

type delegate struct {
	meta  []byte
	state []byte
	mu    sync.Mutex
	got   []string
}

func (d *delegate) NodeMeta(limit int) []byte                  { return d.meta }
func (d *delegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d *delegate) LocalState(join bool) []byte                { return d.state }
func (d *delegate) MergeRemoteState(buf []byte, join bool)     {}
func (d *delegate) NotifyMsg(b []byte) {
	d.mu.Lock()
	d.got = append(d.got, hex.EncodeToString(b))
	d.mu.Unlock()
}

// ---------------------------------------------------------------- scenarios

type nodeInfo struct {
	Name      string `json:"name"`
	Addr      string `json:"addrHex"`
	Port      int    `json:"port"`
	Meta      string `json:"metaHex"`
	UserState string `json:"userStateHex"`
}

type output struct {
	Scenario     string         `json:"scenario"`
	Source       string         `json:"source"`
	Compression  bool           `json:"compression"`
	Protocol     int            `json:"protocolVersion"`
	SecretHex    string         `json:"secretHex,omitempty"`
	KeyHex       string         `json:"keyHex,omitempty"`
	Nodes        []nodeInfo     `json:"nodes"`
	UserMessages []string       `json:"userMessagesHex"`
	Packets      []packetRecord `json:"packets"`
	Streams      []streamRecord `json:"streams"`
}

type scenario struct {
	name        string
	compression bool
	protocol    int
	secret      []byte
	delegate    bool
	nodeNames   []string
}

// metallbKey derives the key as MetalLB's speaker does (metallb: speaker/main.go): sha256.New().Sum(secret)
// appends SHA-256("") to the secret bytes, cut to 32 bytes.
func metallbKey(secret []byte) []byte {
	return sha256.New().Sum(secret)[:32]
}

func run(sc scenario, outDir string) error {
	rec := &recorder{}
	var key []byte
	if sc.secret != nil {
		key = metallbKey(sc.secret)
	}
	var lists []*memberlist.Memberlist
	var infos []nodeInfo
	var delegates []*delegate
	create := func(name string, meta, state []byte) (*memberlist.Memberlist, error) {
		nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{"127.0.0.1"}, BindPort: 0,
			Logger: log.New(ioutil.Discard, "", 0)})
		if err != nil {
			return nil, err
		}
		rt := &recordingTransport{NetTransport: nt, name: name, rec: rec, accepted: make(chan net.Conn)}
		go rt.relay()
		conf := memberlist.DefaultLANConfig()
		conf.Name = name
		conf.BindAddr = "127.0.0.1"
		conf.BindPort = nt.GetAutoBindPort()
		conf.AdvertisePort = conf.BindPort
		conf.Transport = rt
		conf.EnableCompression = sc.compression
		conf.ProtocolVersion = uint8(sc.protocol)
		conf.SecretKey = key
		conf.LogOutput = ioutil.Discard
		// Fast timers so a short run shows probes, indirect probes, suspicion and death.
		conf.ProbeInterval = 150 * time.Millisecond
		conf.ProbeTimeout = 60 * time.Millisecond
		conf.GossipInterval = 40 * time.Millisecond
		conf.SuspicionMult = 1
		conf.SuspicionMaxTimeoutMult = 2
		conf.PushPullInterval = 700 * time.Millisecond
		conf.TCPTimeout = 300 * time.Millisecond
		d := &delegate{meta: meta, state: state}
		if sc.delegate {
			conf.Delegate = d
		}
		ml, err := memberlist.Create(conf)
		if err != nil {
			return nil, err
		}
		lists = append(lists, ml)
		delegates = append(delegates, d)
		info := nodeInfo{Name: name, Addr: hex.EncodeToString(ml.LocalNode().Addr), Port: int(ml.LocalNode().Port)}
		if sc.delegate {
			info.Meta = hex.EncodeToString(meta)
			info.UserState = hex.EncodeToString(state)
		}
		infos = append(infos, info)
		return ml, nil
	}

	for i, name := range sc.nodeNames {
		// Meta deliberately not UTF-8 (0xff, 0x00) so a decoder that turns bytes into text breaks.
		meta := []byte(fmt.Sprintf("mlb\x00\xffnode=%s;zone=z%d", name, i))
		state := []byte(fmt.Sprintf("user-state-of-%s\x01\x02\xfe", name))
		ml, err := create(name, meta, state)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := ml.Join([]string{fmt.Sprintf("127.0.0.1:%d", lists[0].LocalNode().Port)}); err != nil {
				return fmt.Errorf("join %s: %v", name, err)
			}
		}
	}
	time.Sleep(500 * time.Millisecond)

	var userMessages []string
	a, b := lists[0], lists[1]
	for i := 0; i < 2; i++ {
		udp := []byte(fmt.Sprintf("udp-user-%d\x00\xff", i))
		tcp := []byte(fmt.Sprintf("tcp-user-%d\x80", i))
		userMessages = append(userMessages, hex.EncodeToString(udp), hex.EncodeToString(tcp))
		if err := a.SendBestEffort(b.LocalNode(), udp); err != nil {
			return err
		}
		if err := a.SendReliable(b.LocalNode(), tcp); err != nil {
			return err
		}
	}

	// A fourth node joins, then stops without leaving: probes to it fail.
	victim, err := create("victim", []byte("victim-meta"), []byte("victim-state"))
	if err != nil {
		return err
	}
	if _, err := victim.Join([]string{fmt.Sprintf("127.0.0.1:%d", a.LocalNode().Port)}); err != nil {
		return fmt.Errorf("join victim: %v", err)
	}
	time.Sleep(400 * time.Millisecond)
	victim.Shutdown()
	time.Sleep(1500 * time.Millisecond)

	// The last of the first nodes leaves gracefully.
	last := lists[len(sc.nodeNames)-1]
	last.Leave(time.Second)
	time.Sleep(300 * time.Millisecond)
	for _, ml := range lists {
		ml.Shutdown()
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := output{
		Scenario:     sc.name,
		Source:       "hashicorp/memberlist v0.2.2 (Debian golang-github-hashicorp-memberlist-dev), test/interop/go/memberlist-capture",
		Compression:  sc.compression,
		Protocol:     sc.protocol,
		Nodes:        infos,
		UserMessages: userMessages,
		Packets:      rec.packets,
	}
	if sc.secret != nil {
		out.SecretHex = hex.EncodeToString(sc.secret)
		out.KeyHex = hex.EncodeToString(key)
	}
	for _, c := range rec.streams {
		c.mu.Lock()
		if len(c.written) > 0 {
			out.Streams = append(out.Streams, streamRecord{Seq: c.seq, Node: c.node, Side: c.side, Peer: c.peer, Hex: hex.EncodeToString(c.written)})
		}
		c.mu.Unlock()
	}
	sort.Slice(out.Streams, func(i, j int) bool { return out.Streams[i].Seq < out.Streams[j].Seq })
	data, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return ioutil.WriteFile(filepath.Join(outDir, sc.name+".json"), append(data, '\n'), 0o644)
}

func main() {
	outDir := flag.String("out", "", "directory for the fixture files")
	only := flag.String("scenario", "", "run only this scenario")
	flag.Parse()
	if *outDir == "" {
		log.Fatal("-out is required")
	}
	// A 22-character unpadded base64 secret like MetalLB's Secret; the trailing newline variant shows that the
	// file is used verbatim.
	secret := []byte("c2VjcmV0LWtleS1vZi1tbG")
	scenarios := []scenario{
		{name: "plain", compression: false, protocol: 2, nodeNames: []string{"alpha", "beta", "gamma"}},
		{name: "compressed", compression: true, protocol: 2, nodeNames: []string{"alpha", "beta", "127.0.0.1"}},
		{name: "encrypted", compression: true, protocol: 2, secret: secret, nodeNames: []string{"alpha", "beta", "gamma"}},
		{name: "encrypted-v0", compression: false, protocol: 1, secret: append(append([]byte{}, secret...), '\n'), nodeNames: []string{"alpha", "beta", "gamma"}},
		{name: "delegate", compression: false, protocol: 2, delegate: true, nodeNames: []string{"alpha", "beta", "gamma"}},
	}
	// Scenarios run side by side (each has its own nodes, ports and recorder): one run takes seconds, not 15.
	var wg sync.WaitGroup
	errs := make(chan error, len(scenarios))
	ran := 0
	for _, sc := range scenarios {
		if *only != "" && sc.name != *only {
			continue
		}
		ran++
		wg.Add(1)
		go func(sc scenario) {
			defer wg.Done()
			if err := run(sc, *outDir); err != nil {
				errs <- fmt.Errorf("scenario %s: %v", sc.name, err)
			}
		}(sc)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if ran == 0 {
		fmt.Fprintf(os.Stderr, "no scenario named %q\n", *only)
		os.Exit(2)
	}
}
