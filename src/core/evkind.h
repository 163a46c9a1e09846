/* Event kinds, one namespace for all layers so ids never collide. */
#ifndef BN_CORE_EVKIND_H
#define BN_CORE_EVKIND_H

enum bn_event_kind {
    BN_EV_PORT_FREE = 1,   /* obj = port, arg = its node: its last bit left, it may send again */
    BN_EV_ARRIVE,          /* obj = receiving switch port, arg = packet */
    BN_EV_ARRIVE_TAIL,     /* obj = egress port: a held packet's tail is in, queue it */
    BN_EV_RTO,             /* obj = queue pair: retransmission timer */
    BN_EV_QP_PACE,         /* obj = queue pair: its pacing gap is over */
    BN_EV_CC_TIMER,        /* obj = queue pair: congestion-control timer */
    BN_EV_FC_SIGNAL,       /* obj = port, arg = amount << 2 | enum bn_fc_signal */
    BN_EV_APP,             /* obj, arg: the driver's own (flows: start one, sample;
                            * collectives: post a transfer) */
    BN_EV_ARRIVE_HOST,     /* obj = receiving endpoint (NIC) port, arg = packet */
    BN_EV_FAULT,           /* obj = fault, arg = its phase (src/fault): a link fails, ... */
    BN_EV_ROUTE,           /* obj = switch, arg = routes version: the control plane installs */
    BN_EV_COMPLETE,        /* obj = the poster's cookie, arg = side: a delayed completion */
    /* the flow-level engine (src/flow) */
    BN_EV_FLOW_SOLVE,      /* flows started (or stopped a frame ago): rates again */
    BN_EV_FLOW_SENT,       /* the earliest message's last byte leaves its NIC */
    BN_EV_FLOW_RX,         /* obj = queue pair, arg = PSN past the message: it is in */
    BN_EV_FLOW_ACK,        /* obj = queue pair, arg = PSN past the message: its ACK is in */
    BN_EV_FLOW_START,      /* obj = queue pair: it joins its NIC's round robin */
    BN_EV_NIC_RX,          /* obj = NIC, arg = packet: its receive DMA takes it in */
    BN_EV_FLOW_HYBRID,     /* hybrid: the links both levels share re-rated, idle packet flows out */
};

#endif
