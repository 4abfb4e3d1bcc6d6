// `pulumi-gamehost/emulator` declares its fixture, faults and mutations as plain types (src/emulator/
// fixtureTypes.ts, faultTypes.ts, mutationTypes.ts) so that a program's type check never reaches zod's
// typings. Each is its schema's type: the check is `tsc -p tsconfig.test.json`. That the declarations the build
// emits reach no zod is test/packaging/publicTypes.test.ts; test/packaging/consumer/emulator.ts compiles them
// in both templates.
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { FaultSpecJson } from "../../src/emulator/faults";
import type * as schema from "../../src/emulator/fixtureSchema";
import type { FaultSpec, Fixture, FixtureInput, NewEnvironment, NewVersion } from "../../src/emulator/index";
import type { NewEnvironmentSchema, NewVersionSchema } from "../../src/emulator/mutations";

describe("the emulator's plain declarations", () => {
  it("are the fixture schema's output type, and an input it accepts", () => {
    expectTypeOf<Fixture>().toEqualTypeOf<z.output<typeof schema.Fixture>>();
    // The input is the schema's, but names what zod's input leaves `unknown` or widens (tags are strings,
    // `bootstrap.access` lists the known values): what it declares the schema takes, and a parsed fixture
    // can be given back.
    expectTypeOf<FixtureInput>().toExtend<z.input<typeof schema.Fixture>>();
    expectTypeOf<Fixture>().toExtend<FixtureInput>();
    expectTypeOf<keyof FixtureInput>().toEqualTypeOf<keyof z.input<typeof schema.Fixture>>();
    expectTypeOf<Fixture["games"][number]>().toEqualTypeOf<z.output<typeof schema.FixtureGame>>();
    expectTypeOf<Fixture["tokens"][number]>().toEqualTypeOf<z.output<typeof schema.FixtureToken>>();
    expectTypeOf<Fixture["lobbyGenerators"][number]>().toEqualTypeOf<
      z.output<typeof schema.FixtureLobbyGenerator>
    >();
  });

  it("are the mutation schemas' input types, and the admin route's faults are FaultSpecs", () => {
    expectTypeOf<NewEnvironment>().toEqualTypeOf<z.input<typeof NewEnvironmentSchema>>();
    expectTypeOf<NewVersion>().toEqualTypeOf<z.input<typeof NewVersionSchema>>();
    expectTypeOf<Omit<z.output<typeof FaultSpecJson>, "pathRegex">>().toExtend<FaultSpec>();
  });
});
