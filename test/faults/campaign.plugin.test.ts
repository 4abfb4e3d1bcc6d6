// The fault campaign (campaign.ts) through the provider plugin.
import { defineCampaign } from "./campaign";

defineCampaign("plugin");
