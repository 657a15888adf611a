// memberlist-node: a real hashicorp/memberlist node (Debian's v0.2.2) for mlb's interop tests.
// It prints one JSON line per event on stdout and reads commands on stdin:
//
//	members      -> {"event":"members","members":[...],"nodes":[...]}, each {"name","addr","port","state","incarnation","meta"}:
//	                members is memberlist's Members() (what MetalLB uses: dead and left nodes omitted), nodes is
//	                every node memberlist still knows, dead and left ones included until they are reaped
//	leave        -> graceful Leave(1s) then exit, as MetalLB's speaker does on shutdown ({"event":"left"})
//
// "state" is memberlist's real node state (0 alive, 1 suspect, 2 dead, 3 left). memberlist 0.2.2 does not expose
// it: Node.State is never set (nodeState.State shadows it), so it is read from the embedding nodeState.
// Flags mirror what MetalLB sets: LAN defaults, name, bind address and port, optional secret key file read
// verbatim and turned into the AES key as MetalLB does (the secret followed by sha256(""), cut to 32 bytes).
// -timers overrides failure-detector timers of the LAN defaults (JSON, durations in ms, the names of mlb's
// SwimConfig), so a benchmark can run memberlist's mechanism with the timers of another profile.
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
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

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

// nodeStateType is memberlist's unexported nodeState, which embeds Node first (offset 0): every *Node memberlist
// hands out (Members(), events) points into one.
var nodeStateType reflect.Type

func init() {
	f, ok := reflect.TypeOf((*memberlist.Memberlist)(nil)).Elem().FieldByName("nodes")
	if !ok || f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Ptr {
		panic("memberlist.Memberlist has no nodes []*nodeState field: this memberlist version is not supported")
	}
	nodeStateType = f.Type.Elem().Elem()
	if first := nodeStateType.Field(0); first.Name != "Node" || first.Offset != 0 {
		panic("nodeState does not embed Node first")
	}
}

// stateOf reads the nodeState around n: its real state and incarnation. Callers hold memberlist's node lock
// (events run under it; members takes it).
func stateOf(n *memberlist.Node) (int64, uint64) {
	ns := reflect.NewAt(nodeStateType, unsafe.Pointer(n)).Elem()
	return ns.FieldByName("State").Int(), ns.FieldByName("Incarnation").Uint()
}

func nodeJSON(n *memberlist.Node) map[string]interface{} {
	state, incarnation := stateOf(n)
	return map[string]interface{}{"name": n.Name, "addr": n.Addr.String(), "port": n.Port, "meta": hex.EncodeToString(n.Meta), "state": state, "incarnation": incarnation}
}

// membersJSON lists Members() and every known node (dead and left too), under memberlist's node lock.
func membersJSON(ml *memberlist.Memberlist) ([]map[string]interface{}, []map[string]interface{}) {
	v := reflect.ValueOf(ml).Elem()
	lock := (*sync.RWMutex)(unsafe.Pointer(v.FieldByName("nodeLock").UnsafeAddr()))
	public := ml.Members() // takes the read lock itself
	lock.RLock()
	defer lock.RUnlock()
	members := []map[string]interface{}{}
	for _, n := range public {
		members = append(members, nodeJSON(n))
	}
	nodes := []map[string]interface{}{}
	all := v.FieldByName("nodes")
	for i := 0; i < all.Len(); i++ {
		nodes = append(nodes, nodeJSON((*memberlist.Node)(unsafe.Pointer(all.Index(i).Pointer()))))
	}
	return members, nodes
}

func (events) NotifyJoin(n *memberlist.Node) {
	emit(map[string]interface{}{"event": "join", "node": nodeJSON(n)})
}
func (events) NotifyLeave(n *memberlist.Node) {
	emit(map[string]interface{}{"event": "leave", "node": nodeJSON(n)})
}
func (events) NotifyUpdate(n *memberlist.Node) {
	emit(map[string]interface{}{"event": "update", "node": nodeJSON(n)})
}

type metaDelegate struct{ meta []byte }

func (d metaDelegate) NodeMeta(limit int) []byte                  { return d.meta }
func (d metaDelegate) NotifyMsg([]byte)                           {}
func (d metaDelegate) GetBroadcasts(overhead, limit int) [][]byte { return nil }
func (d metaDelegate) LocalState(join bool) []byte                { return nil }
func (d metaDelegate) MergeRemoteState(buf []byte, join bool)     {}

// timers: the failure-detector settings -timers may override; an absent field keeps the LAN default.
type timers struct {
	ProbeInterval           *float64 `json:"probeInterval"`
	ProbeTimeout            *float64 `json:"probeTimeout"`
	IndirectChecks          *int     `json:"indirectChecks"`
	SuspicionMult           *int     `json:"suspicionMult"`
	SuspicionMaxTimeoutMult *int     `json:"suspicionMaxTimeoutMult"`
	RetransmitMult          *int     `json:"retransmitMult"`
	AwarenessMaxMultiplier  *int     `json:"awarenessMaxMultiplier"`
	GossipInterval          *float64 `json:"gossipInterval"`
	GossipNodes             *int     `json:"gossipNodes"`
	GossipToTheDeadTime     *float64 `json:"gossipToTheDeadTime"`
	PushPullInterval        *float64 `json:"pushPullInterval"`
	TCPTimeout              *float64 `json:"tcpTimeout"`
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func applyTimers(conf *memberlist.Config, text string) error {
	var t timers
	if err := json.Unmarshal([]byte(text), &t); err != nil {
		return err
	}
	durations := []struct {
		v   *float64
		dst *time.Duration
	}{{t.ProbeInterval, &conf.ProbeInterval}, {t.ProbeTimeout, &conf.ProbeTimeout}, {t.GossipInterval, &conf.GossipInterval},
		{t.GossipToTheDeadTime, &conf.GossipToTheDeadTime}, {t.PushPullInterval, &conf.PushPullInterval}, {t.TCPTimeout, &conf.TCPTimeout}}
	for _, d := range durations {
		if d.v != nil {
			*d.dst = ms(*d.v)
		}
	}
	counts := []struct {
		v   *int
		dst *int
	}{{t.IndirectChecks, &conf.IndirectChecks}, {t.SuspicionMult, &conf.SuspicionMult}, {t.SuspicionMaxTimeoutMult, &conf.SuspicionMaxTimeoutMult},
		{t.RetransmitMult, &conf.RetransmitMult}, {t.AwarenessMaxMultiplier, &conf.AwarenessMaxMultiplier}, {t.GossipNodes, &conf.GossipNodes}}
	for _, c := range counts {
		if c.v != nil {
			*c.dst = *c.v
		}
	}
	return nil
}

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
	timerJSON := flag.String("timers", "", "failure-detector timers overriding the LAN defaults (JSON, ms)")
	flag.Parse()

	conf := memberlist.DefaultLANConfig()
	conf.Name = *name
	conf.BindAddr = *bind
	conf.BindPort = *port
	conf.AdvertisePort = *port
	conf.Events = events{}
	conf.LogOutput = logCounter{}
	if *timerJSON != "" {
		if err := applyTimers(conf, *timerJSON); err != nil {
			fmt.Fprintln(os.Stderr, "-timers:", err)
			os.Exit(2)
		}
	}
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
			members, nodes := membersJSON(ml)
			emit(map[string]interface{}{"event": "members", "members": members, "nodes": nodes})
		case "leave":
			res := map[string]interface{}{"event": "left"}
			if err := ml.Leave(time.Second); err != nil {
				res["error"] = err.Error()
			}
			_ = ml.Shutdown()
			emit(res)
			os.Exit(0)
		}
	}
	select {}
}
