// An MCP server over WebSocket (one JSON-RPC message per text frame, subprotocol "mcp"), on
// the `ws` package, for the ws transport tests. Plain JSON-RPC, like edge-server.mjs.
//
//   node ws-server.mjs [PORT]      prints "listening PORT"
//
// Tools: echo; "headers" returns the upgrade request's Authorization header; "close" closes
// the socket after answering.
import { WebSocketServer } from "ws";

const server = new WebSocketServer({
  host: "127.0.0.1",
  port: Number(process.argv[2] ?? 0),
  handleProtocols: (protocols) => (protocols.has("mcp") ? "mcp" : false),
});
const tools = ["echo", "headers", "close"].map((name) => ({ name, inputSchema: { type: "object" } }));

server.on("connection", (socket, request) => {
  const send = (message) => socket.send(JSON.stringify(message));
  socket.on("message", (data) => {
    let message;
    try {
      message = JSON.parse(data.toString());
    } catch {
      return;
    }
    const { id, method, params } = message;
    if (id === undefined) return;
    const result = (value) => send({ jsonrpc: "2.0", id, result: value });
    const text = (value) => result({ content: [{ type: "text", text: value }] });
    if (method === "initialize") {
      socket.send("this frame is not JSON-RPC"); // skipped by the client
      result({ protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "ws-server", version: "1.0.0" } });
    } else if (method === "tools/list") result({ tools });
    else if (method === "ping") result({});
    else if (method === "tools/call" && params.name === "echo") text(`Echo: ${params.arguments?.message}`);
    else if (method === "tools/call" && params.name === "headers") text(`protocol=${socket.protocol} authorization=${request.headers.authorization ?? ""}`);
    else if (method === "tools/call" && params.name === "close") {
      text("closing");
      setTimeout(() => socket.close(), 50);
    } else send({ jsonrpc: "2.0", id, error: { code: -32601, message: `unknown ${method}` } });
  });
});
server.on("listening", () => console.log(`listening ${server.address().port}`));
