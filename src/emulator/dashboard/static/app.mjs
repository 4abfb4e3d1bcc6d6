// The gamehost emulator's dashboard: plain DOM, no framework. The admin token lives in sessionStorage
// (this tab only) and goes in an Authorization header with every request, never in a URL. Live data
// comes as server-sent events read through fetch (EventSource cannot send a header).

const TOKEN_KEY = "gamehost-emulator-admin-token";
/** Rows drawn per table: the page stays fast with tens of thousands of servers. */
const ROWS_SHOWN = 300;
/** Requests kept in the page. */
const REQUESTS_KEPT = 2000;

const $ = (id) => document.getElementById(id);

const state = {
  token: undefined,
  /** Server clock minus this clock, from the snapshot, so ages use the emulator's time. */
  skew: 0,
  games: [],
  servers: new Map(),
  /** Server ids, newest first; dropped when servers come or go. */
  newestFirst: undefined,
  exports: new Map(),
  lobbies: { total: 0, listed: [], generated: [] },
  status: { placement: "auto", outages: [], faults: [], watchers: [], watcherCount: 0 },
  requests: [],
  /** While the monitor is paused: the list as it was, shown instead of `requests` (which keeps filling). */
  requestsFrozen: undefined,
  abort: undefined,
};

/** An element with attributes and children (strings become text: data never becomes markup). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * A name that came from a fixture or a stack, in a bidi isolate of its own: a right-to-left override inside
 * it (U+202E, never closed) cannot reverse the ids and counts printed after it.
 */
const bdi = (text) => h("bdi", {}, text);

/** A table row whose cells carry their column's name (the phone layout shows it). */
function row(table, cells) {
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  return h(
    "tr",
    {},
    cells.map((cell, i) => {
      const td = cell instanceof HTMLTableCellElement ? cell : h("td", {}, cell);
      td.dataset.label = labels[i] ?? "";
      // One box per cell, beside its label in the phone layout.
      td.replaceChildren(h("div", {}, ...td.childNodes));
      return td;
    }),
  );
}

function fillTable(table, rows, empty) {
  table.classList.add("stack");
  const body = table.tBodies[0];
  const cols = table.querySelectorAll("thead th").length;
  body.replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: cols }, empty))]));
}

const plural = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;
const serverNow = () => Date.now() + state.skew;

function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

const when = (ms) =>
  new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
const timeEl = (ms) => h("time", { datetime: new Date(ms).toISOString() }, when(ms));
const short = (id) => id.slice(0, 8);

function serverState(s) {
  if (s.destroyedAt !== undefined)
    return s.exit ?? (s.startedAt === undefined ? "never started" : "destroyed");
  return s.startedAt === undefined ? "placing" : "running";
}

function notice(text, bad = false) {
  const el = $("notice");
  el.textContent = text;
  el.classList.toggle("bad", bad);
}

// ---- Admin API ----

/** An admin API call with the token; resolves with the JSON answer or throws with the service's message. */
async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: {
      authorization: `Bearer ${state.token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    cache: "no-store",
    credentials: "omit",
  });
  const answer = await res.json().catch(() => ({}));
  if (res.status === 401) signOut("The admin token was refused: sign in again.");
  if (!res.ok) throw new Error(`${res.status} ${answer.code ?? ""}: ${answer.message ?? res.statusText}`);
  return answer;
}

async function act(what, fn) {
  try {
    await fn();
    notice(what);
  } catch (err) {
    notice(`${what} failed: ${err.message}`, true);
  }
}

// ---- Live stream ----

async function connect(token) {
  state.abort?.abort();
  const abort = new AbortController();
  state.abort = abort;
  let res;
  try {
    res = await fetch("/__admin/events", {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      cache: "no-store",
      credentials: "omit",
      signal: abort.signal,
    });
  } catch {
    return "unreachable";
  }
  if (res.status === 401 || res.status === 403) return "refused";
  if (!res.ok || !res.body) return "unreachable";
  readStream(res.body, abort.signal);
  return "ok";
}

async function readStream(body, signal) {
  setConnection("Live", "live");
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        dispatch(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
    }
  } catch {
    // Aborted on sign-out, or the emulator went away: handled below.
  }
  if (signal.aborted || !state.token) return;
  setConnection("Disconnected: reconnecting…", "down");
  setTimeout(reconnect, 1000);
}

async function reconnect() {
  if (!state.token) return;
  const result = await connect(state.token);
  if (result === "refused")
    signOut("The admin token was refused: the emulator may have restarted with a new one.");
  else if (result !== "ok") setTimeout(reconnect, 2000);
}

function dispatch(block) {
  let name = "message";
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) name = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  if (!data) return;
  const payload = JSON.parse(data);
  if (name === "snapshot") {
    state.skew = payload.now - Date.now();
    state.games = payload.games;
    state.servers = new Map(payload.servers.map((s) => [s.id, s]));
    state.newestFirst = undefined;
    state.exports = new Map(payload.exports.map((e) => [e.uploadId, e]));
    state.lobbies = payload.lobbies;
    state.status = payload.status;
    state.requests = payload.requests.slice(-REQUESTS_KEPT);
  } else if (name === "servers") {
    for (const s of payload) {
      if (s.gone) {
        state.servers.delete(s.id);
        state.newestFirst = undefined;
      } else {
        if (!state.servers.has(s.id)) state.newestFirst = undefined;
        state.servers.set(s.id, s);
      }
    }
  } else if (name === "exports") {
    for (const e of payload) {
      if (e.gone) state.exports.delete(e.uploadId);
      else state.exports.set(e.uploadId, e);
    }
  } else if (name === "games") {
    state.games = payload;
  } else if (name === "status") {
    state.status = payload;
  } else if (name === "requests") {
    // A page that connects while others listen gets, in the next event, requests its snapshot had.
    const last = state.requests.at(-1)?.seq ?? -1;
    state.requests.push(...payload.filter((r) => r.seq > last));
    if (state.requests.length > REQUESTS_KEPT)
      state.requests.splice(0, state.requests.length - REQUESTS_KEPT);
  }
  scheduleRender();
}

function setConnection(text, cls) {
  const el = $("connection");
  el.textContent = text;
  el.className = `connection ${cls ?? ""}`;
}

// ---- Sign in and out ----

async function signIn(token) {
  $("login-error").textContent = "";
  const result = await connect(token);
  if (result === "refused") {
    sessionStorage.removeItem(TOKEN_KEY);
    $("login-error").textContent =
      "That token was refused. Use the admin token the emulator printed at start.";
    $("token").focus();
    return;
  }
  if (result !== "ok") {
    $("login-error").textContent = "The emulator does not answer: is it still running?";
    return;
  }
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  $("login").hidden = true;
  $("app").hidden = false;
  $("sign-out").hidden = false;
  if (!location.hash) location.hash = "#/overview";
  route();
}

function signOut(message = "") {
  state.token = undefined;
  state.abort?.abort();
  sessionStorage.removeItem(TOKEN_KEY);
  $("app").hidden = true;
  $("sign-out").hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
  setConnection("Signed out");
  $("token").focus();
}

// ---- Views ----

/** Redraws at most this often while events stream in: a burst of creates is one redraw, not hundreds. */
const RENDER_EVERY_MS = 250;
let renderQueued = false;
let lastRender = 0;
function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  const wait = Math.max(0, lastRender + RENDER_EVERY_MS - performance.now());
  setTimeout(
    () =>
      requestAnimationFrame(() => {
        renderQueued = false;
        lastRender = performance.now();
        render();
      }),
    wait,
  );
}

function currentView() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "servers" && parts[1]) return { view: "server", id: parts[1] };
  const known = ["overview", "servers", "lobbies", "watchers", "requests", "chaos"];
  return { view: known.includes(parts[0]) ? parts[0] : "overview" };
}

function route() {
  const { view } = currentView();
  for (const section of document.querySelectorAll("main > section"))
    section.hidden = section.dataset.view !== view;
  const tab = view === "server" ? "servers" : view;
  for (const a of document.querySelectorAll(".tabs a")) {
    if (a.getAttribute("href") === `#/${tab}`) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  render();
}

function render() {
  if (!state.token) return;
  const { view, id } = currentView();
  if (view === "overview") renderOverview();
  else if (view === "servers") renderServers();
  else if (view === "server") renderServer(id);
  else if (view === "lobbies") renderLobbies();
  else if (view === "watchers") renderWatchers();
  else if (view === "requests") renderRequests();
  else if (view === "chaos") renderChaos();
}

const gameName = (id) => state.games.find((g) => g.id === id)?.displayName ?? short(id);
function environmentName(id) {
  for (const g of state.games) for (const e of g.environments) if (e.id === id) return e.nameId;
  return short(id);
}

/** Names a person knows for a server's ids (the stream sends ids only: fewer bytes per update). */
function namesOf(s) {
  for (const g of state.games) {
    const env = g.environments.find((e) => e.id === s.environment);
    if (!env) continue;
    return {
      game: g.displayName,
      environment: env.nameId,
      datacenter: g.datacenters.find((d) => d.id === s.datacenter)?.slug ?? short(s.datacenter),
      build: env.builds.find((b) => b.id === s.build)?.name ?? short(s.build),
    };
  }
  return {
    game: "?",
    environment: short(s.environment),
    datacenter: short(s.datacenter),
    build: short(s.build),
  };
}

function renderOverview() {
  const servers = [...state.servers.values()];
  const live = servers.filter((s) => s.destroyedAt === undefined);
  const counts = [
    ["Games", state.games.length],
    ["Live servers", live.length],
    ["Placing", live.filter((s) => s.startedAt === undefined).length],
    ["Exports", state.exports.size],
    ["Held watchers", state.status.watcherCount],
    ["Pending faults", state.status.faults.length],
  ];
  $("overview-counts").replaceChildren(
    ...counts.map(([k, v]) => h("div", { class: "count" }, h("b", {}, v), k)),
  );
  const down = new Set(state.status.outages);
  $("games").replaceChildren(
    ...state.games.map((g) =>
      h(
        "article",
        { class: "game" },
        h("h3", {}, bdi(g.displayName), " ", h("small", {}, bdi(g.nameId), ` · ${g.id}`)),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Environments"),
          h(
            "dd",
            {},
            g.environments.map((e) => {
              const n = live.filter((s) => s.environment === e.id).length;
              const version = g.versions.find((v) => v.id === e.versionId)?.displayName ?? short(e.versionId);
              return h(
                "span",
                { class: "tag" },
                bdi(e.nameId),
                " (version ",
                bdi(version),
                `, ${plural(e.builds.length, "build")}, ${plural(n, "live server")})`,
              );
            }),
          ),
          h("dt", {}, "Datacenters"),
          h(
            "dd",
            {},
            g.datacenters.map((d) =>
              h("span", { class: "tag" }, bdi(d.slug), " — ", bdi(d.name), down.has(d.id) ? " (OUTAGE)" : ""),
            ),
          ),
          h("dt", {}, "Players"),
          h("dd", {}, g.totalPlayerCount),
        ),
      ),
    ),
  );
}

function endpointsOf(s) {
  return Object.entries(s.ports).map(([name, p]) =>
    h(
      "div",
      { class: "mono" },
      bdi(name),
      ` ${p.protocol}${p.internalPort ? `:${p.internalPort}` : ""} → ${p.endpoint ?? "(not placed)"}`,
    ),
  );
}

const tagsOf = (s) =>
  Object.entries(s.tags).map(([k, v]) => h("span", { class: "tag" }, bdi(k), "=", bdi(v)));

function renderServers() {
  const q = $("servers-q").value.trim().toLowerCase();
  const showDestroyed = $("servers-destroyed").checked;
  // Sorted again only when servers come or go: updates (placement, destroy) keep the order.
  state.newestFirst ??= [...state.servers.values()]
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((s) => s.id);
  const all = state.newestFirst.map((id) => state.servers.get(id));
  const matching = all.filter((s) => {
    if (!showDestroyed && s.destroyedAt !== undefined) return false;
    if (!q) return true;
    const names = namesOf(s);
    const text = [
      s.id,
      serverState(s),
      names.datacenter,
      names.build,
      names.environment,
      ...Object.entries(s.tags).map(([k, v]) => `${k}=${v}`),
      ...Object.values(s.ports).map((p) => p.endpoint ?? ""),
    ]
      .join(" ")
      .toLowerCase();
    return text.includes(q);
  });
  const now = serverNow();
  const table = $("servers-table");
  fillTable(
    table,
    matching.slice(0, ROWS_SHOWN).map((s) => {
      const st = serverState(s);
      const names = namesOf(s);
      return row(table, [
        h("td", {}, h("a", { href: `#/servers/${s.id}`, class: "mono", title: s.id }, short(s.id))),
        h("td", {}, h("span", { class: `state state-${st.split(" ")[0]}` }, st)),
        names.datacenter,
        names.build,
        h("td", {}, tagsOf(s)),
        h("td", {}, endpointsOf(s)),
        h("td", { class: "num" }, age((s.destroyedAt ?? now) - s.createdAt)),
      ]);
    }),
    showDestroyed ? "No servers." : "No live servers.",
  );
  $("servers-summary").textContent =
    `${matching.length} of ${all.length} servers${matching.length > ROWS_SHOWN ? ` (the newest ${ROWS_SHOWN} shown)` : ""}.`;
}

function renderServer(id) {
  const s = state.servers.get(id);
  const detail = $("server-detail");
  if (!s) {
    $("server-title").textContent = `Server ${short(id)}`;
    detail.replaceChildren(h("p", {}, "No such server (it may have been dropped after its retention)."));
    return;
  }
  const now = serverNow();
  const st = serverState(s);
  const names = namesOf(s);
  $("server-title").textContent = `Server ${short(s.id)} — ${st}`;
  const events = [
    { what: "Created", at: s.createdAt, note: "accepted by POST …/servers" },
    s.startedAt !== undefined
      ? { what: "Placed", at: s.startedAt, note: `in ${names.datacenter}, public ports assigned` }
      : {
          what: "Placed",
          pending: true,
          note: s.destroyedAt === undefined ? "waiting for placement" : "never",
        },
    s.startedAt !== undefined
      ? { what: "Ready", at: s.startedAt, note: "started, endpoints answer" }
      : { what: "Ready", pending: true, note: s.destroyedAt === undefined ? "not yet" : "never" },
  ];
  if (s.destroyedAt !== undefined) {
    const how =
      s.exit === "crashed"
        ? "the process crashed (killed from the dashboard)"
        : s.exit === "outage"
          ? "its datacenter went down"
          : s.startedAt === undefined
            ? "it could not start"
            : "deleted through the API: SIGTERM sent";
    events.push({ what: "Destroyed", at: s.destroyedAt, note: how, bad: true });
    if (s.killAt !== undefined) {
      const note = s.exit ? "process gone" : s.killAt > now ? "SIGKILL due" : "SIGKILL sent";
      events.push({ what: "Killed", at: s.killAt, note, bad: true, pending: s.killAt > now });
    }
  } else {
    events.push({ what: "Destroyed", pending: true, note: "running" });
  }
  const kill =
    s.destroyedAt === undefined
      ? h(
          "button",
          {
            type: "button",
            class: "danger",
            id: "kill",
            onclick: () => {
              if (!confirm(`Kill server ${short(s.id)}? Its process exits at once, as in a crash.`)) return;
              act(`Killed server ${short(s.id)}`, () => api("POST", `/__admin/servers/${s.id}/kill`, {}));
            },
          },
          "Kill (crash) this server",
        )
      : undefined;
  detail.replaceChildren(
    h(
      "div",
      { class: "detail-grid" },
      h(
        "div",
        {},
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "Id"),
          h("dd", { class: "mono" }, s.id),
          h("dt", {}, "Game"),
          h("dd", {}, names.game),
          h("dt", {}, "Environment"),
          h("dd", {}, names.environment),
          h("dt", {}, "Datacenter"),
          h("dd", {}, names.datacenter),
          h("dt", {}, "Build"),
          h("dd", {}, names.build),
          h("dt", {}, "Tags"),
          h("dd", {}, tagsOf(s)),
          h("dt", {}, "Ports"),
          h("dd", {}, endpointsOf(s)),
          h("dt", {}, "Age"),
          h("dd", {}, age((s.destroyedAt ?? now) - s.createdAt)),
        ),
        kill,
      ),
      h(
        "div",
        {},
        h("h3", {}, "Timeline"),
        h(
          "ol",
          { class: "timeline" },
          events.map((e) =>
            h(
              "li",
              { class: [e.pending ? "pending" : "", e.bad ? "bad" : ""].join(" ").trim() || undefined },
              h("strong", {}, e.what),
              e.at !== undefined ? timeEl(e.at) : undefined,
              h("div", {}, e.note),
            ),
          ),
        ),
      ),
    ),
  );
}

function renderLobbies() {
  const { total, listed, generated } = state.lobbies;
  const lobbies = $("lobbies-table");
  fillTable(
    lobbies,
    listed.map((l) =>
      row(lobbies, [
        h("td", { class: "mono id" }, l.id),
        gameName(l.game),
        environmentName(l.environment),
        l.tier,
        l.lobbyGroup,
        h("td", {}, timeEl(l.startTs)),
        h("td", {}, l.stopTs !== undefined ? timeEl(l.stopTs) : "running"),
      ]),
    ),
    "No lobbies listed in the fixture.",
  );
  const gen = generated.map((g) => `${g.count.toLocaleString("en-US")} generated for ${gameName(g.game)}`);
  $("lobbies-summary").textContent =
    `${[`${total} listed in the fixture (newest ${listed.length} shown)`, ...gen].join("; ")}.`;
  const exportsTable = $("exports-table");
  fillTable(
    exportsTable,
    [...state.exports.values()]
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((e) =>
        row(exportsTable, [
          h("td", { class: "mono" }, short(e.uploadId)),
          gameName(e.game),
          `(${when(e.queryStart)}, ${when(e.queryEnd)}]`,
          h("td", { class: "num" }, e.rows),
          h("td", {}, timeEl(e.createdAt)),
          h("td", {}, timeEl(e.expiresAt)),
        ]),
      ),
    "No exports yet.",
  );
}

function renderWatchers() {
  const { watchers, watcherCount } = state.status;
  const now = serverNow();
  const table = $("watchers-table");
  fillTable(
    table,
    watchers.map((w) =>
      row(table, [
        h("td", { class: "mono" }, w.keys.join(", ")),
        h("td", { class: "num" }, age(now - w.since)),
      ]),
    ),
    "No watch is held.",
  );
  $("watchers-summary").textContent =
    `${watcherCount} held watch${watcherCount === 1 ? "" : "es"} (long polls waiting for a game update).`;
}

function renderRequests() {
  const q = $("requests-q").value.trim().toLowerCase();
  const status = $("requests-status").value;
  const shown = state.requestsFrozen ?? state.requests;
  const matching = shown.filter((r) => {
    if (status !== "" && String(r.status === 0 ? 0 : Math.floor(r.status / 100)) !== status) return false;
    return !q || `${r.method} ${r.route} ${r.path} ${r.status} ${r.identity}`.toLowerCase().includes(q);
  });
  const table = $("requests-table");
  fillTable(
    table,
    matching
      .slice(-ROWS_SHOWN)
      .reverse()
      .map((r) =>
        row(table, [
          h(
            "td",
            {},
            h("time", { datetime: new Date(r.at).toISOString() }, new Date(r.at).toISOString().slice(11, 23)),
          ),
          r.method,
          h("td", { class: "mono", title: r.path }, r.route.replace(/^\S+ /, "")),
          h(
            "td",
            { class: `num status-${r.status === 0 ? 0 : Math.floor(r.status / 100)}` },
            r.status === 0 ? "dropped" : r.status,
          ),
          h("td", { class: "num" }, `${r.ms.toFixed(1)} ms`),
          r.identity,
        ]),
      ),
    "No requests match.",
  );
  $("requests-summary").textContent =
    `${matching.length} of ${shown.length} recent requests${state.requestsFrozen ? " (paused)" : ""}.`;
}

const FAULT_NAMES = {
  rate_limit: "429 rate limit",
  error_status: "status error",
  error_500: "500",
  latency: "latency",
  reset: "dropped connection",
  hang: "hang",
  commit_then_reset: "commit, then drop",
  commit_then_500: "commit, then 500",
};

function faultLabel(f) {
  if (f.kind === "rate_limit") return `429, retry in ${f.retryAfterMs} ms`;
  if (f.kind === "latency") return `latency ${f.latencyMs} ms`;
  if (f.kind === "error_status") return `status ${f.status}`;
  return FAULT_NAMES[f.kind] ?? f.kind;
}

function renderChaos() {
  const { faults, placement, outages } = state.status;
  const table = $("faults-table");
  fillTable(
    table,
    faults.map((f) =>
      row(table, [
        faultLabel(f),
        f.method ?? "any",
        h("td", { class: "mono" }, f.pathGlob ?? f.path ?? f.pathRegex ?? "any"),
        h("td", { class: "num" }, f.remaining),
      ]),
    ),
    "No fault pending.",
  );
  const held = placement === "never";
  $("placement-state").textContent = held
    ? "Held: new servers are not placed."
    : "Automatic: new servers are placed after the placement delay.";
  $("placement-toggle").textContent = held ? "Resume placement" : "Hold placement";
  const down = new Set(outages);
  $("datacenters").replaceChildren(
    ...state.games.flatMap((g) =>
      g.datacenters.map((d) =>
        h(
          "li",
          {},
          h("span", {}, bdi(d.slug), " (", bdi(g.displayName), `)${down.has(d.id) ? " — OUTAGE" : ""}`),
          h(
            "button",
            {
              type: "button",
              class: down.has(d.id) ? "secondary" : "danger",
              "aria-label": `${down.has(d.id) ? "End" : "Start"} outage of ${d.slug} (${g.displayName})`,
              onclick: () =>
                down.has(d.id)
                  ? act(`Outage of ${d.slug} ended`, () => api("DELETE", `/__admin/outages/${d.id}`))
                  : act(`Outage of ${d.slug} started`, () =>
                      api("POST", "/__admin/outages", { datacenter: d.id }),
                    ),
            },
            down.has(d.id) ? "End outage" : "Start outage",
          ),
        ),
      ),
    ),
  );
}

function showFaultFields() {
  const kind = $("fault-kind").value;
  for (const el of document.querySelectorAll("#fault-form [data-for]")) el.hidden = el.dataset.for !== kind;
}

function faultSpec() {
  const kind = $("fault-kind").value;
  const spec = { kind, count: Number($("fault-count").value || 1) };
  const method = $("fault-method").value;
  const glob = $("fault-glob").value.trim();
  if (method) spec.method = method;
  if (glob) spec.pathGlob = glob;
  if (kind === "rate_limit") {
    spec.retryAfterMs = Number($("fault-retry-ms").value || 0);
    spec.retryAfter = $("fault-retry-style").value;
  }
  if (kind === "latency") spec.latencyMs = Number($("fault-latency").value || 0);
  if (kind === "error_status") spec.status = Number($("fault-status").value);
  return spec;
}

async function refreshStatus() {
  // The stream sends the new status within half a second; this shows it at once.
  const [{ faults }, { outages }] = await Promise.all([
    api("GET", "/__admin/faults"),
    api("GET", "/__admin/outages"),
  ]);
  state.status = { ...state.status, faults, outages };
  scheduleRender();
}

// ---- Wiring ----

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = $("token").value.trim();
    if (!token) {
      $("login-error").textContent = "Enter the admin token.";
      return;
    }
    signIn(token);
  });
  $("sign-out").addEventListener("click", () => signOut());
  window.addEventListener("hashchange", () => {
    route();
    $("main").focus({ preventScroll: true });
  });
  for (const id of ["servers-q", "servers-destroyed", "requests-q", "requests-status"]) {
    $(id).addEventListener("input", scheduleRender);
  }
  for (const id of ["servers-filter", "requests-filter"])
    $(id).addEventListener("submit", (e) => e.preventDefault());
  $("requests-pause").addEventListener("click", (e) => {
    // Paused, the page keeps what arrives, so Resume shows it rather than a silent gap.
    state.requestsFrozen = state.requestsFrozen ? undefined : state.requests.slice();
    const paused = state.requestsFrozen !== undefined;
    e.currentTarget.setAttribute("aria-pressed", String(paused));
    e.currentTarget.textContent = paused ? "Resume" : "Pause";
    scheduleRender();
  });
  $("fault-kind").addEventListener("change", showFaultFields);
  $("fault-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const spec = faultSpec();
    act(`Injected: ${faultLabel({ ...spec, retryAfter: spec.retryAfter ?? "date" })}`, async () => {
      await api("POST", "/__admin/faults", spec);
      await refreshStatus();
    });
  });
  $("faults-clear").addEventListener("click", () =>
    act("Cleared every fault", async () => {
      await api("DELETE", "/__admin/faults");
      await refreshStatus();
    }),
  );
  $("placement-toggle").addEventListener("click", () => {
    const mode = state.status.placement === "never" ? "auto" : "never";
    act(mode === "never" ? "Placement held" : "Placement resumed", async () => {
      await api("POST", "/__admin/placement", { mode });
      state.status = { ...state.status, placement: mode };
      scheduleRender();
    });
  });
  showFaultFields();
  // Ages move on by themselves.
  setInterval(() => {
    const { view } = currentView();
    if (state.token && ["servers", "server", "watchers"].includes(view)) scheduleRender();
  }, 1000);
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) signIn(saved);
  else $("token").focus();
});
