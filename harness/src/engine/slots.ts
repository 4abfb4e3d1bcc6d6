/**
 * `pkg/resource/deploy/step_executor.go`: the worker pool — at most `size` steps run at once; the rest wait in
 * arrival order.
 */
export class StepSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // The freed slot passes straight to the next waiter, so `running` never exceeds `size`.
      if (next) next();
      else this.running--;
    }
  }
}
