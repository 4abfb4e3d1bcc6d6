// The fault campaign (campaign.ts) through the dynamic-provider host.
import { defineCampaign } from "./campaign";

defineCampaign("dynamic");
