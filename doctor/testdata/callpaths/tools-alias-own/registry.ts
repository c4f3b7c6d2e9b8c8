export const registry = {
  tools: {
    execute: async (name: string, args: object) => ({ name, args }),
  },
};
