// Real-CLI program: one Fleet from the config object `fleet` (FleetArgs), on the face config `face` picks
// (`plugin`: pulumi-gamehost/native; else the dynamic resource). Tests change the config between runs.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config();
const Fleet = config.get("face") === "plugin" ? gamehost.native.Fleet : gamehost.Fleet;
// `import`: the id of a fleet to adopt (the plugin face), as a stack moving from the dynamic face does;
// `options`: resource options as JSON (`replaceOnChanges`, `ignoreChanges`, …), as a user writes them.
const adopt = config.get("import");
const options = { ...config.getObject("options"), ...(adopt ? { import: adopt } : {}) };
const fleet = new Fleet("arena", config.requireObject("fleet"), options);

exports.fleetKey = fleet.fleetKey;
exports.generation = fleet.generation;
exports.status = fleet.status;
