// An OAuth-protected MCP server for the end-to-end login tests, built on the MCP TypeScript
// SDK's own authorization-server pieces (`mcpAuthRouter`: RFC 8414 and RFC 9728 metadata,
// dynamic registration, the authorize endpoint with PKCE, token, revocation) and its bearer
// middleware. What the SDK leaves to a provider is here: a login page that wants a password,
// refresh tokens (rotated), short-lived access tokens, and counters to check against.
//
//   node oauth-server.mjs [PORT] [TOKEN_TTL_SECONDS]
//
// The MCP endpoint is /mcp (streamable HTTP); /sse (legacy HTTP+SSE, messages POSTed to
// /messages) is a second protected resource with its own RFC 9728 metadata, and /modern a
// third: a server of the 2026-07-28 protocol only (the SDK 2.x server package, `legacy:
// 'reject'`), every request of which carries the token.
//
// Prints "listening PORT". The password is "letmein". GET /stats returns the counters, GET
// /issued every token issued (for tests that check tokens appear nowhere they must not);
// POST /quirk switches on a misbehaviour (see below).
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import * as modernSdk from "@modelcontextprotocol/server";
import { z } from "zod";
import * as jose from "jose";
import { createHash } from "node:crypto";

const ttl = Number(process.argv[3] ?? 3600);
const stats = { registrations: 0, logins: 0, codes: 0, refreshes: 0, refusedRefreshes: 0, revocations: 0, calls: 0, unauthenticated: 0, machineTokens: 0, dpopTokens: 0, dpopProofs: 0, replaysRefused: 0, badProofs: 0, reusedRefreshTokens: 0 };
// DPoP: the key thumbprint each access and refresh token is bound to, the jtis seen, the last
// proof /mcp accepted.
const boundTo = new Map();
const jtis = new Set();
let lastProof = null;

// Checks a DPoP proof for METHOD at URL (with ath for TOKEN); its key's thumbprint, or why not.
async function checkProof(proof, method, url, token) {
  if (!proof || proof.includes(",")) return { error: "one DPoP proof is required" };
  try {
    const header = jose.decodeProtectedHeader(proof);
    if (header.typ !== "dpop+jwt" || !header.jwk || header.jwk.d) return { error: "not a DPoP proof" };
    const { payload } = await jose.jwtVerify(proof, await jose.importJWK(header.jwk, header.alg));
    if (payload.htm !== method || payload.htu !== url) return { error: `htm/htu ${payload.htm} ${payload.htu} is not ${method} ${url}` };
    if (Math.abs(Date.now() / 1000 - payload.iat) > 60) return { error: "iat too far" };
    if (token !== undefined && payload.ath !== createHash("sha256").update(token).digest("base64url")) return { error: "ath does not match" };
    if (jtis.has(payload.jti)) return { error: "replayed proof", replay: true };
    jtis.add(payload.jti);
    stats.dpopProofs += 1;
    return { jkt: await jose.calculateJwkThumbprint(header.jwk) };
  } catch (err) {
    return { error: String(err) };
  }
}
// A pre-registered machine client for the client-credentials grant, which the SDK's token
// handler does not implement: client id "machine", secret "machine-secret" (Basic or body).
const MACHINE = { id: "machine", secret: "machine-secret" };
// POST /quirk {"quirk": "authorize-file-scheme"}: the metadata's authorization_endpoint is a
// file: URL.
// POST /quirk {"quirk": "refresh-error-as-200"}: refuse refreshes the way some providers do,
// with an OAuth error in the body of an HTTP 200.
// POST /quirk {"quirk": "forget-clients"}: the registered clients are forgotten.
// POST /quirk {"quirk": "dpop"}: DPoP (RFC 9449) enforced: the metadata offers ES256, a token
// request must carry a valid proof and gets a token bound to its key (token_type DPoP), a
// refresh must be proved by the same key, and /mcp takes only `Authorization: DPoP` with a
// fresh proof (htm, htu, ath, the bound key); a proof whose jti was seen is a replay, refused
// (counted in stats.replaysRefused). GET /last-proof: the last proof /mcp accepted, and its
// token, for a test to replay.
let quirk = null;
const clients = new Map();
const pending = new Map(); // login form id → authorization params
const codes = new Map();
const access = new Map();
const refresh = new Map();
// Refresh tokens already spent (rotated away): one presented again is counted in
// stats.reusedRefreshTokens, the figure the keeper's rotation test must keep at zero.
const spent = new Set();

const clientsStore = {
  async getClient(id) {
    return clients.get(id);
  },
  async registerClient(metadata) {
    stats.registrations += 1;
    const client = { ...metadata, client_id: randomUUID(), client_id_issued_at: Math.floor(Date.now() / 1000) };
    clients.set(client.client_id, client);
    return client;
  },
};

// Every token ever issued, for the tests that look for them where they must not be.
const issued = [];

function issue(clientId, scopes, resource) {
  const token = randomUUID();
  const refreshToken = randomUUID();
  issued.push(token, refreshToken);
  // For scripts/test's last check: no issued token anywhere the run left files or output.
  if (process.env.MCP_MANAGER_ISSUED_TOKENS) appendFileSync(process.env.MCP_MANAGER_ISSUED_TOKENS, `${token}\n${refreshToken}\n`);
  access.set(token, { clientId, scopes, resource, expiresAt: Date.now() + ttl * 1000 });
  refresh.set(refreshToken, { clientId, scopes, resource });
  return { access_token: token, token_type: "bearer", expires_in: ttl, refresh_token: refreshToken, scope: scopes.join(" ") };
}

const provider = {
  clientsStore,
  // The login page: the person (or the test's $BROWSER) must post the password.
  async authorize(client, params, res) {
    if (!client.redirect_uris.includes(params.redirectUri)) {
      res.status(400).send("unregistered redirect_uri");
      return;
    }
    const id = randomUUID();
    pending.set(id, { client, params });
    res.type("html").send(`<!doctype html><title>Log in</title><h1>Log in to the test server</h1>
<form method="post" action="/login"><input type="hidden" name="id" value="${id}">
<label>Password <input type="password" name="password"></label><button>Log in</button></form>`);
  },
  async challengeForAuthorizationCode(_client, code) {
    return codes.get(code)?.params.codeChallenge;
  },
  async exchangeAuthorizationCode(client, code) {
    const grant = codes.get(code);
    if (!grant || grant.client.client_id !== client.client_id) throw new InvalidGrantError("unknown code");
    codes.delete(code);
    return issue(client.client_id, grant.params.scopes ?? [], grant.params.resource?.href);
  },
  async exchangeRefreshToken(client, refreshToken) {
    const grant = refresh.get(refreshToken);
    if (!grant && spent.has(refreshToken)) stats.reusedRefreshTokens += 1;
    if (!grant || grant.clientId !== client.client_id) throw new InvalidGrantError("unknown refresh token");
    refresh.delete(refreshToken); // rotated
    spent.add(refreshToken);
    stats.refreshes += 1;
    return issue(client.client_id, grant.scopes, grant.resource);
  },
  async verifyAccessToken(token) {
    const grant = access.get(token);
    if (!grant || grant.expiresAt < Date.now()) throw new InvalidTokenError("invalid or expired token");
    return { token, clientId: grant.clientId, scopes: grant.scopes, expiresAt: Math.floor(grant.expiresAt / 1000) };
  },
  async revokeToken(_client, { token }) {
    if (access.delete(token) || refresh.delete(token)) stats.revocations += 1;
  },
};

const app = express();
app.use(express.urlencoded({ extended: false }));
const server = app.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  const port = server.address().port;
  const base = new URL(`http://localhost:${port}`);
  const mcpUrl = new URL(`http://localhost:${port}/mcp`);
  app.post("/quirk", express.json(), (req, res) => {
    quirk = req.body.quirk ?? null;
    // "forget-tokens": every token issued so far stops working (as after a server-side
    // revocation), refresh tokens included.
    if (quirk === "forget-tokens") {
      access.clear();
      refresh.clear();
    }
    // "forget-clients": every client registered so far is unknown (as after a restart, or a
    // purge of registrations); its authorize requests get invalid_client.
    if (quirk === "forget-clients") {
      clients.clear();
    }
    res.json({ quirk });
  });
  app.post("/token", async (req, res, next) => {
    if (quirk === "dpop" && ["authorization_code", "refresh_token"].includes(req.body.grant_type)) {
      const checked = await checkProof(req.headers.dpop, "POST", `${base.origin}/token`);
      if (checked.error) {
        stats.badProofs += 1;
        return res.status(400).json({ error: "invalid_dpop_proof", error_description: checked.error });
      }
      const bound = req.body.grant_type === "refresh_token" ? boundTo.get(req.body.refresh_token) : undefined;
      if (bound && bound !== checked.jkt) return res.status(400).json({ error: "invalid_grant", error_description: "the refresh token is bound to another key" });
      const json = res.json.bind(res);
      res.json = (body) => {
        if (body?.access_token) {
          boundTo.set(body.access_token, checked.jkt);
          boundTo.set(body.refresh_token, checked.jkt);
          stats.dpopTokens += 1;
          body = { ...body, token_type: "DPoP" };
        }
        return json(body);
      };
    }
    if (req.body.grant_type === "client_credentials") {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const [id, secret] = basic
        ? Buffer.from(basic, "base64").toString().split(":").map(decodeURIComponent)
        : [req.body.client_id, req.body.client_secret];
      if (id !== MACHINE.id || secret !== MACHINE.secret) {
        return res.status(401).json({ error: "invalid_client" });
      }
      stats.machineTokens += 1;
      const token = randomUUID();
      access.set(token, { clientId: id, scopes: [], expiresAt: Date.now() + ttl * 1000 });
      return res.json({ access_token: token, token_type: "bearer", expires_in: ttl });
    }
    if (quirk === "refresh-error-as-200" && req.body.grant_type === "refresh_token") {
      stats.refusedRefreshes += 1;
      return res.status(200).json({ error: "invalid_grant", error_description: "the refresh token was revoked" });
    }
    next();
  });
  // "authorize-file-scheme": the metadata sends the login to a file: URL (issue #21, item 4).
  app.use("/.well-known/oauth-authorization-server", (_req, res, next) => {
    if (quirk !== "authorize-file-scheme" && quirk !== "dpop") return next();
    const json = res.json.bind(res);
    res.json = (body) =>
      json(quirk === "dpop" ? { ...body, dpop_signing_alg_values_supported: ["ES256"] } : { ...body, authorization_endpoint: "file:///etc/passwd" });
    next();
  });
  // No rate limit on the token endpoint: the keeper's rotation test refreshes far more often than the
  // SDK's default (50 token requests in 15 minutes) allows, as short-lived tokens make it do.
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl, scopesSupported: ["mcp:tools"], tokenOptions: { rateLimit: false } }));
  app.post("/login", (req, res) => {
    const login = pending.get(req.body.id);
    if (!login || req.body.password !== "letmein") return res.status(401).send("wrong password");
    pending.delete(req.body.id);
    stats.logins += 1;
    const code = randomUUID();
    codes.set(code, login);
    stats.codes += 1;
    const target = new URL(login.params.redirectUri);
    target.searchParams.set("code", code);
    if (login.params.state !== undefined) target.searchParams.set("state", login.params.state);
    res.redirect(target.href);
  });
  app.get("/stats", (_req, res) => res.json(stats));
  app.get("/issued", (_req, res) => res.json(issued));
  app.get("/last-proof", (_req, res) => res.json(lastProof));
  // With the "dpop" quirk: only a DPoP-bound token with a fresh proof of its key passes, then
  // as the bearer the SDK's middleware checks.
  const dpop = async (req, res, next) => {
    if (quirk !== "dpop") return next();
    const [scheme, token] = (req.headers.authorization ?? "").split(" ");
    const refuse = (error) => {
      res.status(401).set("WWW-Authenticate", `DPoP error="invalid_dpop_proof", error_description="${error}"`).json({ error: "invalid_dpop_proof", error_description: error });
    };
    if (scheme !== "DPoP" || !token) {
      if (scheme) stats.badProofs += 1;
      return scheme ? refuse("the DPoP scheme is required") : next();
    }
    const checked = await checkProof(req.headers.dpop, req.method, mcpUrl.href, token);
    if (checked.error) {
      if (checked.replay) stats.replaysRefused += 1;
      else stats.badProofs += 1;
      return refuse(checked.error);
    }
    if (boundTo.get(token) !== checked.jkt) {
      stats.badProofs += 1;
      return refuse("the proof's key is not the token's");
    }
    lastProof = { proof: req.headers.dpop, token };
    req.headers.authorization = `Bearer ${token}`;
    next();
  };
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  const count = (req, _res, next) => {
    if (!req.headers.authorization) stats.unauthenticated += 1;
    next();
  };
  const whoami = () => {
    const mcp = new McpServer({ name: "oauth-test-server", version: "1.0.0" });
    mcp.tool("whoami", "Says which client the token belongs to", async (extra) => {
      stats.calls += 1;
      return { content: [{ type: "text", text: `client ${extra.authInfo?.clientId}` }] };
    });
    return mcp;
  };
  app.post("/mcp", count, dpop, bearer, express.json(), async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => transport.close());
    await whoami().connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const sseUrl = new URL(`http://localhost:${port}/sse`);
  app.get("/.well-known/oauth-protected-resource/sse", (_req, res) =>
    res.json({ resource: sseUrl.href, authorization_servers: [base.href], scopes_supported: ["mcp:tools"] }),
  );
  const sseBearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(sseUrl) });
  const streams = new Map();
  app.get("/sse", count, sseBearer, async (_req, res) => {
    const transport = new SSEServerTransport("/messages", res);
    streams.set(transport.sessionId, transport);
    res.on("close", () => streams.delete(transport.sessionId));
    await whoami().connect(transport);
  });
  app.post("/messages", count, sseBearer, express.json(), async (req, res) => {
    const transport = streams.get(req.query.sessionId);
    if (!transport) return res.status(404).send("no such session");
    await transport.handlePostMessage(req, res, req.body);
  });
  app.get("/mcp", (_req, res) => res.status(405).set("allow", "POST").end());
  const modernUrl = new URL(`http://localhost:${port}/modern`);
  app.get("/.well-known/oauth-protected-resource/modern", (_req, res) =>
    res.json({ resource: modernUrl.href, authorization_servers: [base.href], scopes_supported: ["mcp:tools"] }),
  );
  const modernBearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(modernUrl) });
  const modern = modernSdk.createMcpHandler(
    () => {
      const mcp = new modernSdk.McpServer({ name: "oauth-modern-server", version: "1.0.0" }, { capabilities: { tools: {} } });
      mcp.registerTool("whoami", { description: "Says which client the token belongs to", inputSchema: z.object({}) }, async (_args, ctx) => {
        stats.calls += 1;
        return { content: [{ type: "text", text: `client ${ctx.http?.authInfo?.clientId}` }] };
      });
      return mcp;
    },
    { legacy: "reject" },
  );
  app.all("/modern", count, modernBearer, express.json(), async (req, res) => {
    const request = new Request(modernUrl, {
      method: req.method,
      headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
      body: ["GET", "HEAD"].includes(req.method) ? undefined : JSON.stringify(req.body),
    });
    const response = await modern.fetch(request, { authInfo: req.auth });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  console.log(`listening ${port}`);
});
