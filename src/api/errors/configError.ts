import { GamehostError } from "./base";
import { configSet, flagOf, type SettingOrigins, settingNames } from "./settingAdvice";

/**
 * Required configuration is missing or invalid. The message names the setting where its value came from
 * (`origins`): the client option and its value for a client built in code, the environment variable, or
 * the Pulumi config key with the `pulumi config set` that fixes it.
 */
export class GamehostConfigError extends GamehostError {
  override name = "GamehostConfigError";
  readonly key: string;
  readonly envVar: string;

  constructor(key: string, envVar: string, problem = "is not set", origins?: SettingOrigins) {
    const setting = settingNames(key, envVar);
    const source = origins?.sources[setting.name];
    const unset = problem === "is not set";
    const provider = origins?.provider;
    const message =
      provider !== undefined && source !== "env"
        ? unset
          ? `The ${setting.name} of provider "${provider}" is not set: give the provider a ${setting.name} (an explicit provider does not read the stack's ${key}) or set the ${envVar} environment variable.`
          : `The ${setting.name} of provider "${provider}" ${problem}: change it where the provider is declared.`
        : origins?.pulumiDo && source !== "env"
          ? unset
            ? `Configuration ${key} is not set: \`pulumi do\` reads no stack config: set the ${envVar} environment variable or pass \`--${flagOf(setting.name)} <value>\`.`
            : `Flag --${flagOf(setting.name)} ${problem}: change it on the \`pulumi do\` command line.`
          : source === "option"
            ? `Client option ${setting.name} ${problem}: pass ${unset ? "it" : "a valid one"} to new GamehostClient.`
            : source === "env"
              ? `Environment variable ${envVar} ${problem}: change or unset it.`
              : source === "config"
                ? `Configuration ${key} ${problem}: run ${configSet(setting)}.`
                : origins?.pulumi === false
                  ? `Client option ${setting.name} ${problem}: pass it to new GamehostClient or set the ${envVar} environment variable.`
                  : `Configuration ${key} ${problem}: run ${configSet(setting)} or set the ${envVar} environment variable.`;
    super(message);
    this.key = key;
    this.envVar = envVar;
  }
}
