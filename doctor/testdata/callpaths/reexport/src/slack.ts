import { composioClient } from "./lib";

export async function post(user: string, text: string) {
  const router = await composioClient.toolRouter.create(user, { toolkits: ["slack"] });
  const tools = await router.tools();
  return tools;
}
