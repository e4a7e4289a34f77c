"""One call through the family's official Python SDK (google-genai), as a user writes it.

Usage: python gamma_sdk_call.py BASE_URL API_KEY MODEL [stream]
Prints one JSON line: the answer's text, its function calls and its model version.
"""

import base64
import json
import sys

from google import genai
from google.genai import types

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


def get_forecast(city: str, days: list[int]) -> dict:
    """Forecast for a city, some days ahead."""
    return {"city": city, "days": days}


def main() -> None:
    base_url, api_key, model = sys.argv[1:4]
    stream = len(sys.argv) > 4 and sys.argv[4] == "stream"
    client = genai.Client(
        api_key=api_key,
        http_options=types.HttpOptions(base_url=base_url, api_version="v1beta"),
    )
    contents = [
        types.Content(
            role="user",
            parts=[
                types.Part.from_text(text="What is in this picture? Then get the weather in Paris."),
                types.Part.from_bytes(data=PNG, mime_type="image/png"),
            ],
        )
    ]
    config = types.GenerateContentConfig(
        system_instruction="Answer briefly.",
        max_output_tokens=200,
        temperature=0.2,
        stop_sequences=["END"],
        tools=[
            types.Tool(
                function_declarations=[
                    # What pydantic-ai and hand-written tools send: a JSON Schema.
                    types.FunctionDeclaration(
                        name="get_weather",
                        description="Current weather for a city.",
                        parameters_json_schema={
                            "type": "object",
                            "properties": {
                                "city": {"type": "string"},
                                "unit_system": {"type": "string", "enum": ["metric", "imperial"]},
                            },
                            "required": ["city"],
                        },
                    ),
                    # What the SDK builds from a Python function: the family's own Schema.
                    types.FunctionDeclaration.from_callable(client=client, callable=get_forecast),
                ]
            )
        ],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        thinking_config=types.ThinkingConfig(thinking_budget=256, include_thoughts=False),
        safety_settings=[
            types.SafetySetting(category="HARM_CATEGORY_HARASSMENT", threshold="BLOCK_ONLY_HIGH")
        ],
    )
    if stream:
        chunks = list(client.models.generate_content_stream(model=model, contents=contents, config=config))
        text = "".join(chunk.text or "" for chunk in chunks)
        calls = [call for chunk in chunks for call in (chunk.function_calls or [])]
        version = chunks[-1].model_version if chunks else None
    else:
        response = client.models.generate_content(model=model, contents=contents, config=config)
        text = response.text or ""
        calls = response.function_calls or []
        version = response.model_version
    print(
        json.dumps(
            {
                "text": text,
                "calls": [{"name": call.name, "args": call.args} for call in calls],
                "model": version,
            }
        )
    )


if __name__ == "__main__":
    main()
