// The DOM events between the page runtime (hybrid.js, page world) and the bridge transport
// (hybrid-transport.js, the bridge's world): each carries one JSON string as its `detail`.
// Provides: SEND_EVENT (runtime -> transport), RECV_EVENT (transport -> runtime), HELLO_EVENT
// (the runtime has started: the transport repeats its `ready`).
var SEND_EVENT = 'hybridkit:send';
var RECV_EVENT = 'hybridkit:recv';
var HELLO_EVENT = 'hybridkit:hello';
