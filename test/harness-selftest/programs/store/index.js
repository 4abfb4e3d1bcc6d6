// Self-test program for the engine harness. Its dynamic provider keeps each item as a JSON file under the
// `dir` input (from `selftest:stateDir`) and appends every mutating call to `<dir>/log.jsonl`, so tests can
// observe what reached the provider and in which order. The provider captures nothing but `require`.
const pulumi = require("@pulumi/pulumi");

function record(dir, entry) {
  const fs = require("node:fs");
  const path = require("node:path");
  fs.appendFileSync(path.join(dir, "log.jsonl"), `${JSON.stringify({ ...entry, at: Date.now() })}\n`);
}

function itemFile(dir, id) {
  return require("node:path").join(dir, `${id}.json`);
}

function outputsOf(inputs) {
  return { ...inputs, derived: `derived:${inputs.value}` };
}

const provider = {
  async configure(req) {
    const dir = req.config.get("selftest:stateDir");
    if (dir) {
      const token = req.config.get("selftest:token");
      record(dir, { op: "configure", token: token === undefined ? null : token });
    }
  },
  async check(_olds, news) {
    // What reached the provider: unknowns arrive as the SDK's sentinel, secrets as plain values.
    record(news.dir, { op: "check", name: news.name, value: news.value, token: news.token ?? null });
    const failures = [];
    if (typeof news.value !== "string" || news.value.length === 0) {
      failures.push({ property: "value", reason: "value must be a non-empty string" });
    }
    return { inputs: news, failures };
  },
  async diff(_id, olds, news) {
    const replaces = olds.key === news.key ? [] : ["key"];
    const changes = replaces.length > 0 || olds.value !== news.value || olds.token !== news.token;
    return { changes, replaces };
  },
  async create(inputs) {
    const fs = require("node:fs");
    const start = Date.now();
    if (inputs.delayMs) await new Promise((resolve) => setTimeout(resolve, inputs.delayMs));
    const id = `${inputs.name}-${require("node:crypto").randomBytes(4).toString("hex")}`;
    const outs = outputsOf(inputs);
    fs.writeFileSync(itemFile(inputs.dir, id), JSON.stringify(outs));
    record(inputs.dir, { op: "create", name: inputs.name, id, start });
    if (inputs.failCreate) {
      throw Object.assign(new Error(`item ${inputs.name} failed to start`), {
        id,
        properties: outs,
        reasons: ["health check failed"],
      });
    }
    return { id, outs };
  },
  async read(id, props) {
    const fs = require("node:fs");
    const file = itemFile(props.dir, id);
    if (!fs.existsSync(file)) return { id: "", props: {} };
    return { id, props: JSON.parse(fs.readFileSync(file, "utf8")) };
  },
  async update(id, _olds, news) {
    const outs = outputsOf(news);
    require("node:fs").writeFileSync(itemFile(news.dir, id), JSON.stringify(outs));
    record(news.dir, { op: "update", name: news.name, id });
    return { outs };
  },
  async delete(id, props) {
    require("node:fs").rmSync(itemFile(props.dir, id), { force: true });
    record(props.dir, { op: "delete", name: props.name, id });
  },
};

class Item extends pulumi.dynamic.Resource {
  constructor(name, args, opts) {
    super(provider, name, { derived: undefined, ...args }, opts, "selftest", "Item");
  }
}

const config = new pulumi.Config("selftest");
const failure = config.get("throw");
// Without a stack: an uncaught error whose stack passes the SDK's source-mapped frames never finishes
// printing on Node 20/22, under the CLI as here (docs/known-issues.md); this program tests the harness.
if (failure) throw Object.assign(new Error(failure), { stack: undefined });

const dir = config.require("stateDir");
const token = config.getSecret("token");
const items = {};
for (const spec of config.requireObject("items")) {
  items[spec.name] = new Item(
    spec.name,
    {
      dir,
      name: spec.name,
      value: spec.valueFrom ? items[spec.valueFrom].derived : spec.value,
      key: spec.key ?? "k1",
      token: spec.useToken ? token : undefined,
      delayMs: spec.delayMs,
      failCreate: spec.failCreate,
    },
    {
      dependsOn: (spec.dependsOn ?? []).map((dep) => items[dep]),
      deleteBeforeReplace: spec.deleteBeforeReplace,
      additionalSecretOutputs: spec.secretDerived ? ["derived"] : undefined,
    },
  );
}

module.exports = {
  names: Object.keys(items),
  derived: Object.fromEntries(Object.entries(items).map(([name, item]) => [name, item.derived])),
  token,
};
