import { Composio } from "@composio/core";

const composio = new Composio();
const session = await composio.create("u1");
const link = await session["authorize"]("github");
console.log(link.redirectUrl);
