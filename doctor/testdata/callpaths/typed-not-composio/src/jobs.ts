export interface JobQueue {
  execute(job: string, payload: Record<string, unknown>): Promise<void>;
}

class MemoryQueue implements JobQueue {
  async execute(job: string, payload: Record<string, unknown>): Promise<void> {
    console.log(job, payload);
  }
}

export function makeQueue(): JobQueue {
  return new MemoryQueue();
}

export async function drain(queue: JobQueue, job: any) {
  await queue.execute("GMAIL_SEND_EMAIL", {});
  await job.execute("GMAIL_SEND_EMAIL", {});
}
