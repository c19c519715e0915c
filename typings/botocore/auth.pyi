from botocore.awsrequest import AWSRequest
from botocore.credentials import ReadOnlyCredentials

class SigV4QueryAuth:
    def __init__(
        self,
        credentials: ReadOnlyCredentials,
        service_name: str,
        region_name: str,
        expires: int = ...,
    ) -> None: ...
    def add_auth(self, request: AWSRequest) -> None: ...
    def _modify_request_before_signing(self, request: AWSRequest) -> None: ...
