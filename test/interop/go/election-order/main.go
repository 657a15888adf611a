// election-order prints, for each case read on stdin, Go's canonical text of an IP (net.ParseIP(...).String())
// and the order MetalLB's L2 election puts the nodes in: sort.Slice by sha256(node + "#" + ip) compared with
// bytes.Compare, hashing inside the comparator exactly as speaker/layer2_controller.go does.
// Standard library only; built in GOPATH mode by test/interop/election-order.test.ts.
//
// stdin:  [{"ip": "2001:DB8::1", "nodes": ["a", "b"]}, ...]
// stdout: [{"canonical": "2001:db8::1", "order": ["b", "a"]}, ...]  (canonical null when ParseIP fails)
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"sort"
)

type electionCase struct {
	IP    string   `json:"ip"`
	Nodes []string `json:"nodes"`
}

type electionResult struct {
	Canonical *string  `json:"canonical"`
	Order     []string `json:"order"`
}

func main() {
	var cases []electionCase
	if err := json.NewDecoder(bufio.NewReader(os.Stdin)).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "election-order: reading cases:", err)
		os.Exit(1)
	}
	results := make([]electionResult, 0, len(cases))
	for _, c := range cases {
		ip := net.ParseIP(c.IP)
		if ip == nil {
			results = append(results, electionResult{})
			continue
		}
		text := ip.String()
		nodes := append([]string(nil), c.Nodes...)
		sort.Slice(nodes, func(i, j int) bool {
			hi := sha256.Sum256([]byte(nodes[i] + "#" + text))
			hj := sha256.Sum256([]byte(nodes[j] + "#" + text))
			return bytes.Compare(hi[:], hj[:]) < 0
		})
		results = append(results, electionResult{Canonical: &text, Order: nodes})
	}
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, "election-order: writing results:", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		os.Exit(1)
	}
}
