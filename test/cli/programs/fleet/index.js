// Real-CLI program: one Fleet from the config object `fleet` (FleetArgs), on the face config `face` picks
// (`plugin`: pulumi-gamehost/native; else the dynamic resource). Tests change the config between runs.
const pulumi = require("@pulumi/pulumi");
const gamehost = require("pulumi-gamehost");

const config = new pulumi.Config();
const Fleet = config.get("face") === "plugin" ? gamehost.native.Fleet : gamehost.Fleet;
// `import`: the id of a fleet to adopt (the plugin face), as a stack moving from the dynamic face does.
const adopt = config.get("import");
const fleet = new Fleet("arena", config.requireObject("fleet"), adopt ? { import: adopt } : {});

exports.fleetKey = fleet.fleetKey;
exports.generation = fleet.generation;
exports.status = fleet.status;
