import { Composio } from "@composio/core";
import { Workbench } from "@composio/experimental";

export const wb = new Workbench(new Composio());
