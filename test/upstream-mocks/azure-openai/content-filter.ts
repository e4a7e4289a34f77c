/**
 * Azure OpenAI's content-filter annotations and refusal. Shapes from Microsoft's documentation
 * (MicrosoftDocs/azure-ai-docs articles/ai-services/openai/concepts/content-filter.md and
 * content-filter-streaming.md: `prompt_filter_results`, per-choice `content_filter_results`, the
 * preamble chunk with empty `choices`, and the 400 `content_filter` error with
 * `innererror.content_filter_result`).
 */
/** A prompt containing this is refused with 400 `content_filter`. */
export const promptFilterTrigger = 'trigger-content-filter';
/** A prompt containing this gets an answer cut with finish_reason `content_filter`. */
export const outputFilterTrigger = 'trigger-output-filter';

function severityCategories(violence: boolean): Record<string, unknown> {
  return {
    hate: { filtered: false, severity: 'safe' },
    self_harm: { filtered: false, severity: 'safe' },
    sexual: { filtered: false, severity: 'safe' },
    violence: violence ? { filtered: true, severity: 'medium' } : { filtered: false, severity: 'safe' },
  };
}

export function promptFilterResults(): unknown[] {
  return [
    {
      prompt_index: 0,
      content_filter_results: {
        ...severityCategories(false),
        jailbreak: { filtered: false, detected: false },
      },
    },
  ];
}

export function choiceFilterResults(filtered: boolean): Record<string, unknown> {
  return {
    ...severityCategories(filtered),
    protected_material_code: { filtered: false, detected: false },
    protected_material_text: { filtered: false, detected: false },
  };
}

/** Azure's error body differs from OpenAI's: `status` and `innererror` ride along, `type` is null. */
export interface AzureFilterRefusal {
  status: 400;
  body: { error: Record<string, unknown> };
}

export function promptFilterRefusal(): AzureFilterRefusal {
  return {
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please " +
          'modify your prompt and retry. To learn more about our content filtering policies please read our ' +
          'documentation: https://go.microsoft.com/fwlink/?linkid=2198766',
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: {
          code: 'ResponsibleAIPolicyViolation',
          content_filter_result: {
            ...severityCategories(true),
            jailbreak: { filtered: false, detected: false },
          },
        },
      },
    },
  };
}
