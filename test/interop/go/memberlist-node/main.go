// memberlist-node: a real hashicorp/memberlist node (Debian's v0.2.2) for mlb's interop tests.
// It prints one JSON line per event on stdout and reads commands on stdin:
//   members      -> {"event":"members","members":[{"name","addr","port","state","meta"}]}
//   leave        -> graceful Leave(1s) then exit, as MetalLB's speaker does on shutdown
// Flags mirror what MetalLB sets: LAN defaults, name, bind address and port, optional secret key file read
// verbatim and turned into the AES key as MetalLB does (the secret followed by sha256(""), cut to 32 bytes).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
)

var out = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

func emit(v map[string]interface{}) {
	out.Lock()
	defer out.Unlock()
	v["t"] = time.Now().UnixNano() / int64(time.Millisecond)
	_ = out.enc.Encode(v)
}

type events struct{}

func nodeJSON(n *memberlist.Node) map[string]interface{} {
	return map[string]interface{}{"name": n.Name, "addr": n.Addr.String(), "port": n.Port, "meta": hex.EncodeToString(n.Meta), "state": n.State}
}

func (events) NotifyJoin(n *memberlist.Node)   { emit(map[string]interface{}{"event": "join", "node": nodeJSON(n)}) }
func (events) NotifyLeave(n *memberlist.Node)  { emit(map[string]interface{}{"event": "leave", "node": nodeJSON(n)}) }
func (events) NotifyUpdate(n *memberlist.Node) { emit(map[string]interface{}{"event": "update", "node": nodeJSON(n)}) }

type metaDelegate struct{ meta []byte }

func (d metaDelegate) NodeMeta(limit int) []byte                  { return d.meta }
func (d metaDelegate) NotifyMsg([]byte)                           {}
func (d metaDelegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d metaDelegate) LocalState(join bool) []byte                { return nil }
func (d metaDelegate) MergeRemoteState(buf []byte, join bool)     {}

type logCounter struct{}

// Write forwards memberlist's log lines as events, so tests can count refusals (e.g. decryption failures).
func (logCounter) Write(p []byte) (int, error) {
	emit(map[string]interface{}{"event": "log", "line": strings.TrimSpace(string(p))})
	return len(p), nil
}

func main() {
	name := flag.String("name", "", "node name")
	bind := flag.String("bind", "127.0.0.1", "bind address")
	port := flag.Int("port", 7946, "bind port")
	join := flag.String("join", "", "comma-separated host:port to join")
	keyFile := flag.String("key-file", "", "MetalLB secretkey file")
	meta := flag.String("meta", "", "node meta (text)")
	flag.Parse()

	conf := memberlist.DefaultLANConfig()
	conf.Name = *name
	conf.BindAddr = *bind
	conf.BindPort = *port
	conf.AdvertisePort = *port
	conf.Events = events{}
	conf.LogOutput = logCounter{}
	if *meta != "" {
		conf.Delegate = metaDelegate{meta: []byte(*meta)}
	}
	if *keyFile != "" {
		secret, err := ioutil.ReadFile(*keyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		// MetalLB speakerlist.go: sha256.New().Sum(secret)[:32] appends sha256("") to the secret bytes.
		conf.SecretKey = sha256.New().Sum(secret)[:32]
	}
	ml, err := memberlist.Create(conf)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	emit(map[string]interface{}{"event": "ready", "port": *port})
	if *join != "" {
		n, err := ml.Join(strings.Split(*join, ","))
		res := map[string]interface{}{"event": "joined", "contacted": n}
		if err != nil {
			res["error"] = err.Error()
		}
		emit(res)
	}
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		switch strings.TrimSpace(scanner.Text()) {
		case "members":
			var ms []map[string]interface{}
			for _, n := range ml.Members() {
				ms = append(ms, nodeJSON(n))
			}
			emit(map[string]interface{}{"event": "members", "members": ms})
		case "leave":
			_ = ml.Leave(time.Second)
			_ = ml.Shutdown()
			emit(map[string]interface{}{"event": "left"})
			os.Exit(0)
		}
	}
	select {}
}
