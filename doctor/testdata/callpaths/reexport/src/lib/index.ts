export { client as composioClient } from "./client";
