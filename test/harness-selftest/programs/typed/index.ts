// Self-test program in TypeScript: run through the SDK's ts-node registration, type-checked.
import * as pulumi from "@pulumi/pulumi";

interface Greeting {
  text: string;
}

const provider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: Greeting) {
    return {
      id: `greeting-${inputs.text.length}`,
      outs: { text: inputs.text, shout: inputs.text.toUpperCase() },
    };
  },
};

class Greeter extends pulumi.dynamic.Resource {
  public readonly shout!: pulumi.Output<string>;
  constructor(name: string, args: { text: pulumi.Input<string> }) {
    super(provider, name, { shout: undefined, ...args }, undefined, "selftest", "Greeter");
  }
}

const greeter = new Greeter("hello", { text: new pulumi.Config("selftest").get("text") ?? "hello" });

export const shout = greeter.shout;
export const id = greeter.id;
