// The Python program of docs/languages.md in Go, on the SDK that `pulumi package gen-sdk --language go`
// generates (copied to ./sdk/go/gamehost by test/cli/genSdk.test.ts).
package main

import (
	"example.com/pulumi-gamehost/sdk/go/gamehost"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		env, err := gamehost.GetEnvironment(ctx, &gamehost.GetEnvironmentArgs{
			Game: cfg.Require("game"), Environment: "prod",
		})
		if err != nil {
			return err
		}
		slug := cfg.Require("datacenter")
		dc, err := gamehost.GetDatacenters(ctx, &gamehost.GetDatacentersArgs{
			GameId: env.GameId, EnvironmentId: env.EnvironmentId, Slug: &slug,
		})
		if err != nil {
			return err
		}
		builds, err := gamehost.GetBuilds(ctx, &gamehost.GetBuildsArgs{
			GameId: env.GameId, EnvironmentId: env.EnvironmentId, Tags: map[string]string{"channel": "stable"},
		})
		if err != nil {
			return err
		}
		match, err := gamehost.NewServer(ctx, "match", &gamehost.ServerArgs{
			GameId:        pulumi.String(env.GameId),
			EnvironmentId: pulumi.String(env.EnvironmentId),
			Datacenter:    pulumi.String(dc.Datacenters[0].Id),
			Tags:          pulumi.StringMap{"role": pulumi.String("match")},
			Runtime:       gamehost.ServerRuntimeArgs{Build: pulumi.String(builds.Builds[0].Id)},
			Network: gamehost.ServerNetworkArgs{Ports: gamehost.ServerPortSpecMap{
				"game": gamehost.ServerPortSpecArgs{
					Protocol:     gamehost.PortProtocolUdp,
					InternalPort: pulumi.Int(7777),
					Routing:      gamehost.PortRoutingArgs{Host: gamehost.RoutingKindArgs{}},
				},
			}},
			Resources: gamehost.ServerResourcesArgs{Cpu: pulumi.Int(1000), Memory: pulumi.Int(1024)},
		}, pulumi.Timeouts(&pulumi.CustomTimeouts{Create: "5m"}))
		if err != nil {
			return err
		}
		ctx.Export("endpoint", match.Endpoints.MapIndex(pulumi.String("game")))
		return nil
	})
}
