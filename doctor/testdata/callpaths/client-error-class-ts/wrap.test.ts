import ComposioClient, { ComposioError, APIError } from "@composio/client";

// the client module's error classes build no client: only the type of the mock is the client's
export function failing(mock: ComposioClient) {
  const apiError = new ComposioError("API error");
  mock.connectedAccounts.retrieve = () => Promise.reject(apiError);
  return new APIError(500, undefined, "boom", undefined);
}
