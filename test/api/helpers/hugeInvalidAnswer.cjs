// Child of test/api/errorBounds.test.ts, run under a memory watchdog (a heap cap and a kill timer): a
// fake service answers GET /cloud/games with a 15 MB body of invalid games, and the compiled client
// (dist/) reads it. Prints what the error looked like and the process's peak RSS, as one JSON line.
const http = require("node:http");
const { GamehostClient } = require(`${process.argv[2]}/dist/api/client.js`);

const SIZE = 15 * 1024 * 1024;
// Each invalid game is two bytes ("1,"): the most issues a body of this size can hold.
const body = `{"games":[${"1,".repeat(SIZE / 2 - 40)}1],"groups":[],"watch":{"index":"1"}}`;
const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, "127.0.0.1", async () => {
  const client = new GamehostClient({
    baseUrl: `http://127.0.0.1:${server.address().port}`,
    token: "tok-watchdog-1",
    retry: { maxRetries: 0 },
  });
  const started = Date.now();
  let error;
  try {
    await client.listGames();
  } catch (e) {
    error = e;
  }
  console.log(
    JSON.stringify({
      bodyBytes: Buffer.byteLength(body),
      name: error?.name,
      message: error?.message,
      messageBytes: Buffer.byteLength(error?.message ?? ""),
      keptIssues: error?.issues?.length,
      ms: Date.now() - started,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
  process.exit(0);
});
