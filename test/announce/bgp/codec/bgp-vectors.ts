/**
 * Annotated BGP test vectors, written by hand from the RFCs' formats (field by field, one per line), plus the
 * two messages a tcpdump shows MetalLB v0.16 sending to FRR 8.4. `hex()` strips spaces and # comments.
 * Every marker is 16 octets of ff.
 */
import { parseCIDR, type CIDR } from '../../../../src/ip';

import { hex, ip, toHex } from '../../../support/test-bytes';

export { hex, ip, toHex };

export function cidr(text: string): CIDR {
  const v = parseCIDR(text);
  if (!v) throw new Error(`bad CIDR in test: ${text}`);
  return v;
}

export const MARKER = 'ffffffffffffffffffffffffffffffff';

/** RFC 4271 4.2 + RFC 5492 + RFC 4760 8 + RFC 2918 2 + RFC 6793 3 + RFC 4724 3: mlb's OPEN as AS 4200000001. */
export const OPEN_ALL_CAPABILITIES = hex(`
  ${MARKER}
  003f 01            # length 63, type OPEN
  04                 # version 4
  5ba0               # My AS = AS_TRANS 23456 (RFC 6793: the real ASN needs 4 octets)
  005a               # hold time 90
  0ad50002           # BGP identifier 10.213.0.2
  22                 # Opt Parm Len 34
  02 20              #   parameter type 2 (Capabilities), length 32
  01 04 0001 00 01   #     multiprotocol: AFI 1 (IPv4), reserved, SAFI 1 (unicast)
  01 04 0002 00 01   #     multiprotocol: AFI 2 (IPv6), reserved, SAFI 1
  02 00              #     route refresh
  41 04 fa56ea01     #     4-octet ASN 4200000001
  40 0a              #     graceful restart, 10 octets
     0078            #       restart flags 0, restart time 120 s
     0001 01 00      #       IPv4 unicast, forwarding state not preserved
     0002 01 00      #       IPv6 unicast
`);

/** RFC 4271 4.3 with every attribute the model holds, 4-octet AS_PATH (RFC 6793), RFC 1997, RFC 8092. */
export const UPDATE_ALL_ATTRIBUTES = hex(`
  ${MARKER}
  0071 02                        # length 113, type UPDATE
  0002                           # Withdrawn Routes Length 2
    08 0a                        #   10.0.0.0/8
  004f                           # Total Path Attribute Length 79
    40 01 01 00                  #   ORIGIN (well-known, transitive) IGP
    40 02 14                     #   AS_PATH, 20 octets
      02 02 0000fc00 fa56ea01    #     AS_SEQUENCE 64512 4200000001
      01 02 0000fde9 0000fdea    #     AS_SET {65001 65002}
    40 03 04 0ad50002            #   NEXT_HOP 10.213.0.2
    80 04 04 00000005            #   MULTI_EXIT_DISC (optional, non-transitive) 5
    40 05 04 00000064            #   LOCAL_PREF 100
    c0 08 08 fde80064 ffffff01   #   COMMUNITIES (optional, transitive) 65000:100 NO_EXPORT
    c0 20 0c 0000fc00 00000001 00000002  # LARGE_COMMUNITY 64512:1:2
    c0 63 02 abcd                #   unknown optional transitive type 99, kept raw
  20 c0a80ac8                    # NLRI 192.168.10.200/32
  18 0ad509                      # NLRI 10.213.9.0/24
`);

/** RFC 4760 3 + RFC 2545 3: IPv6 unicast with a global and a link-local next hop (32 octets). */
export const UPDATE_IPV6_LINK_LOCAL = hex(`
  ${MARKER}
  0066 02                        # length 102, type UPDATE
  0000                           # no withdrawn routes
  004f                           # Total Path Attribute Length 79
    80 0e 3f                     #   MP_REACH_NLRI (optional, non-transitive), 63 octets
      0002 01                    #     AFI 2 (IPv6), SAFI 1 (unicast)
      20                         #     next hop length 32
        fd000213000000000000000000000002   # fd00:213::2 (global)
        fe80000000000000000000fffe000b02   # fe80::ff:fe00:b02 (link-local)
      00                         #     reserved
      80 fd000213000900000000000000000001  # fd00:213:9::1/128
      40 fd00021300090000        #     fd00:213:9::/64
    40 01 01 00                  #   ORIGIN IGP
    40 02 06 02 01 0000fc00      #   AS_PATH: AS_SEQUENCE 64512
`);

/** RFC 4760 4: IPv6 withdrawal. */
export const UPDATE_IPV6_WITHDRAW = hex(`
  ${MARKER}
  002e 02                        # length 46, type UPDATE
  0000                           # no withdrawn routes (IPv4)
  0017                           # Total Path Attribute Length 23
    80 0f 14                     #   MP_UNREACH_NLRI, 20 octets
      0002 01                    #     AFI 2, SAFI 1
      80 fd000213000900000000000000000001  # fd00:213:9::1/128
`);

/** RFC 4724 2: End-of-RIB for IPv4 unicast, the empty UPDATE. */
export const END_OF_RIB_IPV4 = hex(`${MARKER} 0017 02  0000  0000`);

/** RFC 4724 2: End-of-RIB for IPv6 unicast, an MP_UNREACH_NLRI with no withdrawn routes (FRR 8.4 sends exactly this). */
export const END_OF_RIB_IPV6 = hex(`
  ${MARKER} 001d 02
  0000                           # no withdrawn routes
  0006                           # Total Path Attribute Length 6
    80 0f 03 0002 01             #   MP_UNREACH_NLRI AFI 2 SAFI 1, nothing withdrawn
`);

/** RFC 4271 4.5: Cease / Administrative Shutdown with an RFC 9003 shutdown communication ("maintenance"). */
export const NOTIFICATION_SHUTDOWN = hex(`
  ${MARKER} 0021 03
  06 02                          # Cease, Administrative Shutdown
  0b 6d61696e74656e616e6365      # data: length 11, "maintenance"
`);

/** RFC 4271 4.4: the header alone. */
export const KEEPALIVE = hex(`${MARKER} 0013 04`);

/** RFC 2918 3: ROUTE-REFRESH for IPv6 unicast. */
export const ROUTE_REFRESH_IPV6 = hex(`${MARKER} 0017 05  0002 00 01   # AFI 2, reserved/subtype 0, SAFI 1`);

/**
 * MetalLB v0.16's native speaker (AS 64512) to FRR 8.4: tcpdump -vv decoded "Update Message (2),
 * length: 55" as ORIGIN IGP [T], AS Path 0201 0000 fc00 [T], Next Hop c0a8 0a14 [T], Community fc00 0064 [OT],
 * Updated routes 192.168.20.100/32. Rebuilt from those fields in RFC 4271 order.
 */
export const METALLB_CAPTURED_UPDATE = hex(`
  ${MARKER} 0037 02
  0000                           # no withdrawn routes
  001b                           # Total Path Attribute Length 27
    40 01 01 00                  #   ORIGIN IGP
    40 02 06 02 01 0000fc00      #   AS_PATH 64512 (4-octet: both sides negotiated it)
    40 03 04 c0a80a14            #   NEXT_HOP 192.168.10.20
    c0 08 04 fc000064            #   COMMUNITIES 64512:100
  20 c0a81464                    # NLRI 192.168.20.100/32
`);

/**
 * The same capture's 28-octet withdrawal (tcpdump also printed "End-of-Rib Marker", wrongly: it withdraws a
 * route).
 */
export const METALLB_CAPTURED_WITHDRAW = hex(`
  ${MARKER} 001c 02
  0005 20 c0a81464               # Withdrawn Routes: 192.168.20.100/32
  0000                           # no attributes
`);
