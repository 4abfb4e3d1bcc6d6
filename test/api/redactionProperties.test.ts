/**
 * One redaction rule for every secret the client holds (issue 28 §5): the token, and a presigned export
 * URL's query (its signature). Property tests: any token and any signed URL, embedded anywhere in an
 * error (message, service message, code, metadata, cause) in any form it may be echoed in, never appear
 * in the error's message, stack, JSON of its fields or util.inspect output; and a download host that
 * echoes the request in a 403 or 500 leaks nothing through the client's error.
 */
import { inspect } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GamehostClient } from "../../src/api/client";
import { GamehostApiError } from "../../src/api/errors";
import { REDACTED, redactError, secretsOfUrl } from "../../src/api/redact";
import { useScriptedServers } from "./helpers/scriptedServer";

const scripted = useScriptedServers();

const TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/-";
/** Tokens as the service issues them: at least 8 characters, none a piece of the marker itself. */
const token = fc
  .string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 8, maxLength: 48 })
  .filter((t) => !REDACTED.includes(t));
const signature = fc.string({ unit: fc.constantFrom(...`${TOKEN_CHARS}=`), minLength: 16, maxLength: 64 });
const signedUrl = fc
  .record({
    host: fc.constantFrom("storage.example.net", "bucket.s3.amazonaws.com", "127.0.0.1:9000"),
    path: fc.stringMatching(/^(\/[a-z0-9_-]{1,12}){1,4}\.csv$/),
    name: fc.constantFrom("X-Amz-Signature", "signature", "sig", "X-Goog-Signature", "Signature"),
    signature,
    credential: signature,
  })
  .map(({ host, path, name, signature, credential }) => ({
    url: `https://${host}${path}?X-Amz-Credential=${encodeURIComponent(credential)}&X-Amz-Expires=3600&${name}=${encodeURIComponent(signature)}`,
    signature,
    credential,
  }));

/** The forms an echo may carry a value in. */
const echoed = (value: string) => [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];

/** Every way an error is shown or stored. */
function shown(error: Error): string[] {
  return [
    error.message,
    error.stack ?? "",
    JSON.stringify(error),
    inspect(error, { depth: Infinity, showHidden: true }),
    String(error),
  ];
}

function expectNone(error: Error, secrets: readonly string[]): void {
  for (const text of shown(error)) for (const secret of secrets) expect(text).not.toContain(secret);
}

describe("redaction, as a property", () => {
  it("no token and no part of a signed URL's query survives anywhere in an error", () => {
    fc.assert(
      fc.property(
        token,
        signedUrl,
        fc.constantFrom(...echoed("x").keys()),
        fc.string({ maxLength: 20 }),
        (tok, signed, form, noise) => {
          const echo = (value: string) => echoed(value)[form] ?? value;
          const query = signed.url.slice(signed.url.indexOf("?") + 1);
          const cause = Object.assign(new Error(`inner ${echo(signed.url)}`), {
            data: `Bearer ${echo(tok)}`,
          });
          const error = new GamehostApiError({
            method: "GET",
            path: "/export.csv",
            status: 403,
            code: `${noise}${echo(tok)}`,
            message: `${noise} GET ${echo(signed.url)} Authorization: Bearer ${echo(tok)} <SignatureProvided>${echo(signed.signature)}</SignatureProvided> ${query}`,
            rayId: echo(signed.signature),
            metadata: { request: echo(signed.url), [echo(tok)]: [echo(signed.credential), { q: query }] },
          });
          Object.defineProperty(error, "cause", { value: cause, configurable: true, writable: true });
          redactError(error, [tok, ...secretsOfUrl(signed.url)]);
          expectNone(error, [
            tok,
            signed.signature,
            signed.credential,
            encodeURIComponent(signed.signature),
            query,
          ]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("replaces the query of any URL and any signature-like parameter, even of a URL it never held", () => {
    fc.assert(
      fc.property(signedUrl, (signed) => {
        const error = new GamehostApiError({
          method: "GET",
          path: "/p",
          status: 500,
          code: "HTTP_500",
          message: `upstream fetched ${signed.url}; sig=${signed.signature} token=${signed.credential}`,
        });
        redactError(error, []);
        expectNone(error, [signed.signature, signed.credential, encodeURIComponent(signed.signature)]);
        expect(error.message).toContain(`${signed.url.slice(0, signed.url.indexOf("?"))}?${REDACTED}`);
      }),
      { numRuns: 200 },
    );
  });

  it("keeps what holds no secret readable: the idempotency key, paths, counts", () => {
    const text =
      "list servers tagged pulumi-gamehost/idempotency-key=c111b0a3-0218 at /games/x/servers: …and 1,997 more";
    const error = new GamehostApiError({ method: "GET", path: "/p", status: 400, code: "C", message: text });
    redactError(error, secretsOfUrl("https://h/p.csv?X-Amz-Expires=3600&X-Amz-Signature=abcdefgh12345678"));
    expect(error.serviceMessage).toBe(text);
  });
});

describe("a download host that echoes the request", () => {
  it("leaks no signature through the client's error, whatever the status and body", async () => {
    await fc.assert(
      fc.asyncProperty(
        signedUrl,
        fc.constantFrom(403, 500),
        fc.constantFrom("xml", "text", "json"),
        async (signed, status, kind) => {
          const s = await scripted((req, res) => {
            const echo = `${req.method} ${req.url}`;
            const body =
              kind === "xml"
                ? `<Error><Code>SignatureDoesNotMatch</Code><CanonicalRequest>${echo}</CanonicalRequest></Error>`
                : kind === "json"
                  ? JSON.stringify({ code: "DENIED", message: echo, metadata: { url: req.url } })
                  : echo;
            res.writeHead(status, { "content-type": "text/plain", "rvt-ray-id": `r ${req.url}` });
            res.end(body);
          });
          const url = `${s.url}${signed.url.slice(signed.url.indexOf("/", 8))}`;
          const client = new GamehostClient({
            baseUrl: s.url,
            token: "tok-12345678",
            retry: { maxRetries: 0 },
          });
          const error = (await client.openExport(url).catch((e: unknown) => e)) as Error;
          expect(error).toBeInstanceOf(GamehostApiError);
          expect((error as GamehostApiError).status).toBe(status);
          expectNone(error, [signed.signature, signed.credential, encodeURIComponent(signed.signature)]);
          await s.close();
        },
      ),
      { numRuns: 25 },
    );
  });
});
